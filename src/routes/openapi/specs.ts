import { createRouter } from '../../lib/create-router';

export const openapiSpecsRouter = createRouter();
