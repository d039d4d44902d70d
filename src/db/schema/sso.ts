import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { organizations } from './organizations';
import { teams } from './teams';

/**
 * An organization's SAML identity provider (services/sso). `entityId`, `certificate` (PEM) and `ssoUrl` are
 * empty until configured; the provider is `active` once all three are set. `defaultRole` is a role rank
 * (0 = guest, null = none given) and `defaultTeamId` a team of the organization, both given to members who
 * join through it.
 */
export const samlProviders = sqliteTable(
  'saml_providers',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    entityId: text('entity_id').notNull().default(''),
    certificate: text('certificate').notNull().default(''),
    ssoUrl: text('sso_url').notNull().default(''),
    defaultTeamId: text('default_team_id').references(() => teams.id, { onDelete: 'set null' }),
    defaultRole: integer('default_role'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('saml_providers_org').on(t.orgId, t.createdAt, t.id)],
);

/**
 * The AuthnRequests this deployment sent (their `ID`, which a response names in `InResponseTo`): a response is
 * accepted only for an unexpired request of its provider that no response consumed yet, which refuses replays.
 */
export const samlRequests = sqliteTable(
  'saml_requests',
  {
    id: text('id').primaryKey(),
    providerId: text('provider_id')
      .notNull()
      .references(() => samlProviders.id, { onDelete: 'cascade' }),
    relayState: text('relay_state'),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    consumedAt: text('consumed_at'),
  },
  (t) => [index('saml_requests_provider').on(t.providerId), index('saml_requests_expires').on(t.expiresAt)],
);

export type SamlProviderRow = typeof samlProviders.$inferSelect;
export type SamlRequestRow = typeof samlRequests.$inferSelect;
