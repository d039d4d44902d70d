import { createRouter } from '../../lib/create-router';

export const membersRouter = createRouter();
