import { sql } from 'drizzle-orm';

/** A users row (by its alias) as the JSON of a UserRow. */
export const userJson = (alias: string) => sql.raw(`json_object('id', ${alias}.id, 'displayName', ${alias}.display_name, 'email', ${alias}.email, 'photoURL', ${alias}.photo_url)`);
