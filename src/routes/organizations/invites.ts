import { createRouter } from '../../lib/create-router';

export const invitesRouter = createRouter();
