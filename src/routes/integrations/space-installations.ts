import { urlContext } from '../../schemas/common';
import {
  IntegrationSpaceInstallationSchema,
  toSpaceInstallation,
  UpdateIntegrationSpaceInstallationSchema,
} from '../../schemas/integration-installation';
import { toSpace } from '../../schemas/space';
import { SPACE_INSTALLATIONS } from '../../services/integrations/content-installations';
import { contentInstallationsRouter } from './content-installations';

/** An integration's installations on spaces: the routes of content-installations.ts for spaces. */
export const integrationSpaceInstallationsRouter = contentInstallationsRouter({
  installations: SPACE_INSTALLATIONS,
  idParam: 'spaceId',
  bodyField: 'space',
  operationIds: {
    listForIntegration: 'listIntegrationSpaceInstallations',
    listForInstallation: 'listIntegrationInstallationSpaces',
    install: 'installIntegrationOnSpace',
    get: 'getIntegrationSpaceInstallation',
    update: 'updateIntegrationSpaceInstallation',
    uninstall: 'uninstallIntegrationFromSpace',
  },
  // A space's admins may install an integration on it (services/integrations/content-installations.ts).
  admins: { inSummaries: "the space's admins", inErrors: 'the admins of the space' },
  listForIntegration: {
    description: 'An installation that selects all the spaces of its organization covers each of its live spaces; the others cover the spaces they were installed on.',
    tokens: { integration: true, scope: 'installation' },
  },
  schemas: {
    installation: IntegrationSpaceInstallationSchema,
    listName: 'IntegrationSpaceInstallations',
    update: UpdateIntegrationSpaceInstallationSchema,
  },
  urls: (c) => urlContext(c.req.url, c.env.APP_URL),
  present: (view, urls) =>
    toSpaceInstallation(view.integration, view.installation, view.id, view.state, view.content && toSpace(view.content.space, view.content.rank, urls), urls),
});
