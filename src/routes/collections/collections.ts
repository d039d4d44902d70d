import { createRouter } from '../../lib/create-router';

export const collectionsRouter = createRouter();
