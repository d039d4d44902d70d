import { destinationOf, redirectForPathQuery, withCapture, type StoredDestination } from '../services/sites/redirect-lookup';
import { sourceOfSegments } from '../services/sites/site-paths';
import type { SiteRequest } from './views';

/**
 * A path the site has no page for, sent where the site's live redirects say (its admins' and the `.gitbook.yaml`
 * redirects Git Sync wrote), as GitBook's renderer does on a 404: 301 for a permanent redirect, 302 otherwise. Only
 * reached by a reader the site already admitted; the destination is a path of the same mount (a share link's key
 * kept) or the redirect's external URL. Null when no redirect leads anywhere the site still has.
 */
export async function siteRedirect(request: SiteRequest, segments: string[], redirect: (location: string, status: 301 | 302) => Response): Promise<Response | null> {
  if (segments.length === 0) return null;
  const source = sourceOfSegments(segments);
  const [row] = await redirectForPathQuery(request.db, request.model.site.id, source);
  if (!row) return null;
  const found = await destinationOf(request.db, request.model, row.destination as StoredDestination);
  if (!found) return null;
  const target = 'url' in found ? found.url : new URL(`${request.mount.base}/${found.segments.map(encodeURIComponent).join('/')}`, request.url).href;
  return redirect(withCapture(target, row, source), row.permanent ? 301 : 302);
}
