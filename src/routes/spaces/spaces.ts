import { createRouter } from '../../lib/create-router';

export const spacesRouter = createRouter();
