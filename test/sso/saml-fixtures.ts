/**
 * SAML responses for test/sso, built and signed at test time with the committed TEST-ONLY key pairs of
 * test/fixtures/saml (an identity provider's and an attacker's).
 */
import { SignedXml } from 'xml-crypto';
import { RsaSha384, Sha384 } from '../../src/services/sso/saml';
import attackerCert from '../fixtures/saml/test-only-attacker.crt?raw';
import attackerKey from '../fixtures/saml/test-only-attacker.key?raw';
import idpCert from '../fixtures/saml/test-only-idp.crt?raw';
import idpKey from '../fixtures/saml/test-only-idp.key?raw';

export const IDP = { key: idpKey, cert: idpCert };
export const ATTACKER = { key: attackerKey, cert: attackerCert };
export const IDP_ENTITY_ID = 'https://idp.example.test/metadata';
export const IDP_SSO_URL = 'https://idp.example.test/sso';

const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const NAMEID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

export interface ResponseOptions {
  email?: string;
  /** The AuthnRequest answered (SubjectConfirmationData and Response); null leaves both out (unsolicited). */
  inResponseTo?: string | null;
  /** The Response's own InResponseTo, when it differs from the assertion's. */
  responseInResponseTo?: string | null;
  destination?: string | null;
  recipient?: string;
  audience?: string;
  issuer?: string;
  responseIssuer?: string | null;
  notBefore?: Date;
  notOnOrAfter?: Date;
  confirmationNotOnOrAfter?: Date;
  statusCode?: string;
  statusMessage?: string;
  nameIdFormat?: string;
  /** Extra <saml:Attribute>s: name → value. */
  attributes?: Record<string, string>;
  assertionId?: string;
  responseId?: string;
  /** An EncryptedAssertion in place of the Assertion. */
  encrypted?: boolean;
}

const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** The Assertion element alone. */
export function assertionXml(o: ResponseOptions & { acsUrl: string; spEntityId: string; now?: Date }): string {
  const now = o.now ?? new Date();
  const minutes = (m: number) => new Date(now.getTime() + m * 60_000).toISOString();
  const inResponseTo = o.inResponseTo === null ? '' : ` InResponseTo="${esc(o.inResponseTo ?? '_unknown')}"`;
  const attributes = Object.entries(o.attributes ?? {})
    .map(([name, value]) => `<saml:Attribute Name="${esc(name)}"><saml:AttributeValue>${esc(value)}</saml:AttributeValue></saml:Attribute>`)
    .join('');
  return (
    `<saml:Assertion xmlns:saml="${SAML}" ID="${o.assertionId ?? `_a${crypto.randomUUID().replace(/-/g, '')}`}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${esc(o.issuer ?? IDP_ENTITY_ID)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${o.nameIdFormat ?? NAMEID_EMAIL}">${esc(o.email ?? 'alice@example.test')}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData` +
    ` NotOnOrAfter="${(o.confirmationNotOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString()}" Recipient="${esc(o.recipient ?? o.acsUrl)}"${inResponseTo}/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${(o.notBefore ?? new Date(now.getTime() - 60_000)).toISOString()}" NotOnOrAfter="${(o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString()}">` +
    `<saml:AudienceRestriction><saml:Audience>${esc(o.audience ?? o.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${minutes(0)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion>`
  );
}

/** A whole unsigned Response (sign it with `signXml`). */
export function responseXml(o: ResponseOptions & { acsUrl: string; spEntityId: string; now?: Date }): string {
  const now = o.now ?? new Date();
  const answered = o.responseInResponseTo !== undefined ? o.responseInResponseTo : o.inResponseTo;
  const inResponseTo = answered === null ? '' : ` InResponseTo="${esc(answered ?? '_unknown')}"`;
  const destination = o.destination === null ? '' : ` Destination="${esc(o.destination ?? o.acsUrl)}"`;
  const status =
    `<samlp:Status><samlp:StatusCode Value="${o.statusCode ?? 'urn:oasis:names:tc:SAML:2.0:status:Success'}"/>` +
    (o.statusMessage ? `<samlp:StatusMessage>${esc(o.statusMessage)}</samlp:StatusMessage>` : '') +
    `</samlp:Status>`;
  const body = o.encrypted
    ? `<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"><xenc:CipherData><xenc:CipherValue>AAAA</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData></saml:EncryptedAssertion>`
    : assertionXml(o);
  const issuer = o.responseIssuer === null ? '' : `<saml:Issuer>${esc(o.responseIssuer ?? o.issuer ?? IDP_ENTITY_ID)}</saml:Issuer>`;
  return (
    `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="${o.responseId ?? `_r${crypto.randomUUID().replace(/-/g, '')}`}" Version="2.0"` +
    ` IssueInstant="${now.toISOString()}"${destination}${inResponseTo}>${issuer}${status}${body}</samlp:Response>`
  );
}

export const ALGORITHMS = {
  rsaSha1: { signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', digest: 'http://www.w3.org/2000/09/xmldsig#sha1' },
  rsaSha256: { signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', digest: 'http://www.w3.org/2001/04/xmlenc#sha256' },
  rsaSha384: { signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384', digest: 'http://www.w3.org/2001/04/xmldsig-more#sha384' },
  rsaSha512: { signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512', digest: 'http://www.w3.org/2001/04/xmlenc#sha512' },
} as const;

/** An enveloped signature over the (first) element named `what`, after its Issuer, as identity providers place it. */
export function signXml(
  xml: string,
  keyPair: { key: string; cert: string },
  what: 'Assertion' | 'Response' = 'Assertion',
  algorithm: { signature: string; digest: string } = ALGORITHMS.rsaSha256,
): string {
  const sig = new SignedXml({
    privateKey: keyPair.key,
    publicCert: keyPair.cert,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    signatureAlgorithm: algorithm.signature,
  });
  (sig.SignatureAlgorithms as Record<string, unknown>)[ALGORITHMS.rsaSha384.signature] = RsaSha384;
  (sig.HashAlgorithms as Record<string, unknown>)[ALGORITHMS.rsaSha384.digest] = Sha384;
  sig.addReference({
    xpath: `//*[local-name(.)='${what}']`,
    digestAlgorithm: algorithm.digest,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  sig.computeSignature(xml, { prefix: 'ds', location: { reference: `//*[local-name(.)='${what}']/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

/** Base64 of the UTF-8 text, as the HTTP-POST binding carries it. */
export function encode(xml: string): string {
  const bytes = new TextEncoder().encode(xml);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** The form body of the HTTP-POST binding. */
export function acsForm(samlResponse: string, relayState?: string | null): string {
  const form = new URLSearchParams({ SAMLResponse: samlResponse });
  if (relayState != null) form.set('RelayState', relayState);
  return form.toString();
}

/** The AuthnRequest of a start redirect's Location (base64, deflate-raw) and its RelayState. */
export async function readRedirect(location: string): Promise<{ url: URL; xml: string; relayState: string | null }> {
  const url = new URL(location);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error(`no SAMLRequest in ${location}`);
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  const xml = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).text();
  return { url, xml, relayState: url.searchParams.get('RelayState') };
}
