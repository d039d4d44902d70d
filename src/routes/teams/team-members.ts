import { createRouter } from '../../lib/create-router';

export const teamMembersRouter = createRouter();
