import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './identity';
import { organizations } from './organizations';

export const teams = sqliteTable(
  'teams',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('teams_org').on(t.orgId, t.createdAt, t.id)],
);

export const teamMembers = sqliteTable(
  'team_members',
  {
    teamId: text('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Owners manage the team's membership and title. */
    isOwner: integer('is_owner', { mode: 'boolean' }).notNull().default(false),
    addedAt: text('added_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index('team_members_user').on(t.userId)],
);
