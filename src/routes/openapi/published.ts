import { createRouter } from '../../lib/create-router';

export const openapiPublishedRouter = createRouter();
