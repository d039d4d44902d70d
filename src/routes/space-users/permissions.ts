import { createRouter } from '../../lib/create-router';

export const spaceUsersRouter = createRouter();
