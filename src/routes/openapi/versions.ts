import { createRouter } from '../../lib/create-router';

export const openapiVersionsRouter = createRouter();
