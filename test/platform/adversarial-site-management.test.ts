// The site-management operations of issue 44 (OWN_FILES['site-management']: bulkUpsertSiteRedirects,
// sortSiteStructure, duplicateSiteSpace, and listSites, which lists guests the sites shared with them), attacked by
// every foreign caller, the guest and the reader: see test/helpers/adversarial.ts. The shards leave them out.
import { attackOwnFile } from '../helpers/adversarial';

await attackOwnFile('site-management');
