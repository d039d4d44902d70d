import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppBindings } from '../../env';
import { createRouter } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { limitSsoByClientIp } from '../../middleware/rate-limit';
import { samlBaseUrl } from '../../schemas/saml-provider';
import { completeLogin, findProvider, serviceProvider, startLogin } from '../../services/sso/login';
import { errorPage, htmlResponse, tokenPage } from '../../services/sso/pages';
import { SamlRefusal, serviceProviderMetadata } from '../../services/sso/saml';

/**
 * The SAML 2.0 login of members (services/sso): our metadata, the start (HTTP-Redirect to the identity provider with
 * an AuthnRequest) and the Assertion Consumer Service (HTTP-POST of the SAMLResponse), which answers an HTML page
 * that shows a new API token once. Outside /v1 and the OpenAPI document: browsers, not API clients, call these, and
 * every answer but the metadata and the redirect is a page (refusals too: 400 malformed, 403 refused, no token).
 */

/**
 * The largest ACS body: a signed response with a certificate is a few KB (base64 adds a third); IdPs with many
 * attributes stay far below. Small, as everything in it is parsed before its signature can refuse it.
 */
export const MAX_ACS_BODY_BYTES = 64 * 1024;

/** The base of the provider's SAML URLs: API_URL when set, else this request's origin (schemas/saml-provider). */
const base = (c: Context<AppBindings>) => samlBaseUrl(c.env, c.req.url);

function refusalPage(error: unknown, c: Context<AppBindings>): Response {
  if (error instanceof SamlRefusal || error instanceof ApiError) return htmlResponse(error.status, errorPage(error.status, error.message));
  console.error(`[${c.get('requestId') ?? '-'}]`, error);
  return htmlResponse(500, errorPage(500, 'The login failed on our side. Try again later.'));
}

/** The form fields of the HTTP-POST binding (a missing SAMLResponse: 400). */
async function acsForm(c: Context<AppBindings>): Promise<{ samlResponse: string; relayState: string | null }> {
  const type = (c.req.header('Content-Type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' && type !== 'multipart/form-data') {
    throw new SamlRefusal(400, 'The SAML response must be posted as a form (application/x-www-form-urlencoded)');
  }
  let form: Record<string, unknown>;
  try {
    form = await c.req.parseBody();
  } catch {
    throw new SamlRefusal(400, 'The posted form could not be read');
  }
  const { SAMLResponse: samlResponse, RelayState: relayState } = form;
  if (typeof samlResponse !== 'string' || !samlResponse) throw new SamlRefusal(400, 'The form has no SAMLResponse');
  return { samlResponse, relayState: typeof relayState === 'string' ? relayState : null };
}

export const samlLoginRouter = createRouter()
  // Each client address's own budget for these routes, on top of the visitor one every route outside /v1 has.
  .use('/sso/saml/*', limitSsoByClientIp)
  .get('/sso/saml/:providerId/metadata', async (c) => {
    const providerId = c.req.param('providerId');
    const found = await findProvider(c.get('db'), providerId);
    if (!found) return htmlResponse(404, errorPage(404, 'This single sign-on login does not exist'));
    return c.body(serviceProviderMetadata(serviceProvider(base(c), providerId)), 200, {
      'Content-Type': 'application/samlmetadata+xml; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
  })
  .get('/sso/saml/:providerId/start', async (c) => {
    try {
      const location = await startLogin(c.get('db'), { providerId: c.req.param('providerId'), base: base(c), now: new Date() });
      return new Response(null, { status: 302, headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });
    } catch (error) {
      return refusalPage(error, c);
    }
  })
  .post(
    '/sso/saml/:providerId/acs',
    bodyLimit({
      maxSize: MAX_ACS_BODY_BYTES,
      onError: () => htmlResponse(413, errorPage(413, `The SAML response is larger than ${MAX_ACS_BODY_BYTES} bytes`)),
    }),
    async (c) => {
      try {
        const form = await acsForm(c);
        const result = await completeLogin(c.env, c.get('db'), { providerId: c.req.param('providerId'), base: base(c), ...form, now: new Date() });
        return htmlResponse(200, tokenPage(result));
      } catch (error) {
        return refusalPage(error, c);
      }
    },
  );
