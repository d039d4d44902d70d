import { createRouter } from '../../lib/create-router';

// Placeholder until this resource's routes land (issue 11).
export const integrationSiteInstallationsRouter = createRouter();
