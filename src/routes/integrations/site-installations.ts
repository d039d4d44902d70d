import {
  IntegrationSiteInstallationSchema,
  toSiteInstallation,
  UpdateIntegrationSiteInstallationSchema,
} from '../../schemas/integration-installation';
import { SITE_INSTALLATIONS } from '../../services/integrations/content-installations';
import { siteUrlContext, toSite } from '../../services/sites/present';
import { contentInstallationsRouter } from './content-installations';

/** An integration's installations on sites: the routes of content-installations.ts for sites. */
export const integrationSiteInstallationsRouter = contentInstallationsRouter({
  installations: SITE_INSTALLATIONS,
  idParam: 'siteId',
  bodyField: 'siteId',
  operationIds: {
    listForIntegration: 'listIntegrationSiteInstallations',
    listForInstallation: 'listIntegrationInstallationSites',
    install: 'installIntegrationOnSite',
    get: 'getIntegrationSiteInstallation',
    update: 'updateIntegrationSiteInstallation',
    uninstall: 'uninstallIntegrationFromSite',
  },
  // Sites are administered by their organization's admins.
  admins: { inSummaries: "the organization's admins", inErrors: "the organization's admins" },
  listForIntegration: {
    description: 'An installation that selects all the sites of its organization covers each of them; the others cover the sites they were installed on.',
    // GitBook admits only the integration's own token on the integration-wide site list.
    tokens: { integration: true },
  },
  schemas: {
    installation: IntegrationSiteInstallationSchema,
    listName: 'IntegrationSiteInstallations',
    update: UpdateIntegrationSiteInstallationSchema,
  },
  urls: siteUrlContext,
  present: (view, urls) =>
    toSiteInstallation(view.integration, view.installation, view.id, view.state, view.content && toSite(view.content.site, view.content.siteSpaces, view.content.rank, urls), urls),
});
