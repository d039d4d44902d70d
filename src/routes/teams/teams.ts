import { createRouter } from '../../lib/create-router';

export const teamsRouter = createRouter();
