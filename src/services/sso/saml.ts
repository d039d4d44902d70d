// @ts-expect-error -- imported untyped on purpose: @xmldom/xmldom's index.d.ts adds `lib.dom` to the whole program, whose
// globals clash with the Workers types. The few members used here are typed by `XmlNode` and `XmlDocument` below.
import { DOMParser } from '@xmldom/xmldom/lib/index.js';
import { createHash, createSign, createVerify } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { z } from 'zod';
import { toHex } from '../../lib/ids';

/**
 * The SAML 2.0 protocol of the service provider side (routes/sso/saml-login): the AuthnRequest of the HTTP-Redirect
 * binding, our metadata, and the verification of a Response of the HTTP-POST binding. Pure functions (`now` is given),
 * no database: services/sso/login keeps the requests and makes the user.
 *
 * XML signatures are verified by xml-crypto (over @xmldom/xmldom), which verifies what a signature covers but does not
 * say which element that is: every value is read from the canonical XML of the signed reference itself (never from
 * the document around it), the reference must be the very element it is the signature of, and a Response must hold
 * exactly one Assertion as its direct child (signature wrapping attacks move a signed Assertion aside and put their
 * own where a careless reader looks).
 */

export const NS = {
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  saml: 'urn:oasis:names:tc:SAML:2.0:assertion',
  samlp: 'urn:oasis:names:tc:SAML:2.0:protocol',
  md: 'urn:oasis:names:tc:SAML:2.0:metadata',
  xenc: 'http://www.w3.org/2001/04/xmlenc#',
} as const;

const STATUS_SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const BINDING_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
export const NAMEID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** Clock skew allowed between the identity provider and us, on every time window. */
export const CLOCK_SKEW_MS = 3 * 60 * 1000;

/** A response refused: 400 when it is malformed, 403 when it is well formed but not accepted. No token is issued. */
export class SamlRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 413,
    message: string,
  ) {
    super(message);
  }
}

const malformed = (message: string) => new SamlRefusal(400, message);
const refused = (message: string) => new SamlRefusal(403, message);

/** What this deployment is for one provider (schemas/saml-provider `samlServiceUrls`). */
export interface ServiceProvider {
  entityId: string;
  acsUrl: string;
}

/** The identity provider as configured by the organization's admins. */
export interface IdentityProvider {
  entityId: string;
  /** PEM (services/sso/providers `normalizeCertificate`). */
  certificate: string;
}

// ---------------------------------------------------------------------------------------------
// XML

interface XmlNode {
  nodeType: number;
  localName: string | null;
  namespaceURI: string | null;
  childNodes: ArrayLike<XmlNode>;
  parentNode: XmlNode | null;
  data?: string;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
}

interface XmlDocument {
  documentElement: XmlNode | null;
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlNode>;
}

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;

/** Escapes text for XML content and attribute values. */
export function xmlEscape(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!);
}

/** Parses XML, refusing a document type (and with it entity declarations: no DTD belongs in SAML) and any error. */
function parseXml(xml: string): XmlDocument {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw malformed('The SAML response contains a DOCTYPE or ENTITY declaration, which is not allowed');
  let doc: XmlDocument;
  try {
    doc = new DOMParser({
      errorHandler: (level: string, message: string) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml') as XmlDocument;
  } catch {
    throw malformed('The SAML response is not well-formed XML');
  }
  if (!doc?.documentElement) throw malformed('The SAML response is not well-formed XML');
  return doc;
}

const is = (node: XmlNode, ns: string, name: string) => node.nodeType === ELEMENT && node.localName === name && node.namespaceURI === ns;

/** The element children of `el` named `name` in `ns`. */
function children(el: XmlNode, ns: string, name: string): XmlNode[] {
  return Array.from(el.childNodes).filter((c) => is(c, ns, name));
}

/** The one child named `name` (none: undefined; more than one: malformed). */
function child(el: XmlNode, ns: string, name: string): XmlNode | undefined {
  const found = children(el, ns, name);
  if (found.length > 1) throw malformed(`The SAML response has more than one ${name} in ${el.localName}`);
  return found[0];
}

/** The text of an element that holds text only (a comment or an element inside is refused: no partial reads). */
function textOf(el: XmlNode): string {
  let text = '';
  for (const c of Array.from(el.childNodes)) {
    if (c.nodeType === TEXT || c.nodeType === CDATA) text += c.data ?? '';
    else throw malformed(`The SAML response's ${el.localName} must hold text only`);
  }
  return text.trim();
}

const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|([+-])(\d\d):(\d\d))$/;

/**
 * An xs:dateTime with its zone as epoch milliseconds, strictly: every field in its range (no 2024-02-31, no T24:00,
 * no zone past 14:00), checked by the round trip of its fields through a Date. Not one: null.
 */
export function parseDateTime(value: string): number | null {
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const roundTrip =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && date.getUTCHours() === hour && date.getUTCMinutes() === minute && date.getUTCSeconds() === second;
  if (!roundTrip) return null;
  let offset = 0;
  if (m[8] !== 'Z') {
    const [hours, minutes] = [Number(m[10]), Number(m[11])];
    if (hours > 14 || minutes > 59 || (hours === 14 && minutes > 0)) return null;
    offset = (m[9] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  }
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return date.getTime() + fraction - offset;
}

/** An xs:dateTime attribute as epoch milliseconds (absent: null; not a dateTime with its zone: malformed). */
function timeAttr(el: XmlNode, name: string): number | null {
  if (!el.hasAttribute(name)) return null;
  const value = el.getAttribute(name) ?? '';
  const ms = parseDateTime(value);
  if (ms === null) throw malformed(`The SAML response's ${el.localName} ${name} is not an xs:dateTime: "${value}"`);
  return ms;
}

// ---------------------------------------------------------------------------------------------
// AuthnRequest (HTTP-Redirect binding) and metadata

/** An AuthnRequest ID: an xs:ID (starts with a letter or underscore) with 160 random bits. */
export function newRequestId(): string {
  return `_${toHex(crypto.getRandomValues(new Uint8Array(20)).buffer as ArrayBuffer)}`;
}

/**
 * The AuthnRequest. It is not XML-signed: this deployment has no signing key of its own, and the HTTP-Redirect
 * binding's signature is optional (most identity providers do not require it). Nothing in it is a secret or an
 * authorization: the response is what is verified, and its InResponseTo must name a request we recorded.
 */
export function buildAuthnRequest(input: { id: string; issueInstant: Date; sp: ServiceProvider; ssoUrl: string }): string {
  const { id, sp } = input;
  return (
    `<samlp:AuthnRequest xmlns:samlp="${NS.samlp}" xmlns:saml="${NS.saml}" ID="${xmlEscape(id)}" Version="2.0"` +
    ` IssueInstant="${input.issueInstant.toISOString()}" Destination="${xmlEscape(input.ssoUrl)}"` +
    ` AssertionConsumerServiceURL="${xmlEscape(sp.acsUrl)}" ProtocolBinding="${BINDING_POST}">` +
    `<saml:Issuer>${xmlEscape(sp.entityId)}</saml:Issuer>` +
    `<samlp:NameIDPolicy Format="${NAMEID_EMAIL}" AllowCreate="true"/>` +
    `</samlp:AuthnRequest>`
  );
}

async function deflateRaw(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The identity provider's URL with the request (deflated, base64) and RelayState, keeping the query it has. */
export async function redirectUrl(ssoUrl: string, authnRequest: string, relayState: string): Promise<string> {
  const url = new URL(ssoUrl);
  url.searchParams.set('SAMLRequest', base64(await deflateRaw(authnRequest)));
  url.searchParams.set('RelayState', relayState);
  return url.toString();
}

/** Our SP metadata, for the identity provider's administrators (entityID = its own URL). */
export function serviceProviderMetadata(sp: ServiceProvider): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<md:EntityDescriptor xmlns:md="${NS.md}" entityID="${xmlEscape(sp.entityId)}">` +
    `<md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="${NS.samlp}">` +
    `<md:NameIDFormat>${NAMEID_EMAIL}</md:NameIDFormat>` +
    `<md:AssertionConsumerService Binding="${BINDING_POST}" Location="${xmlEscape(sp.acsUrl)}" index="0" isDefault="true"/>` +
    `</md:SPSSODescriptor>` +
    `</md:EntityDescriptor>\n`
  );
}

// ---------------------------------------------------------------------------------------------
// Signatures

const SIGNATURE = {
  rsaSha1: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  rsaSha384: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384',
  rsaSha512: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
} as const;
const DIGEST = {
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  sha384: 'http://www.w3.org/2001/04/xmldsig-more#sha384',
  sha512: 'http://www.w3.org/2001/04/xmlenc#sha512',
} as const;
const TRANSFORMS = new Set([
  'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  'http://www.w3.org/2001/10/xml-exc-c14n#',
  'http://www.w3.org/2001/10/xml-exc-c14n#WithComments',
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments',
]);

/** RSA PKCS#1 v1.5 with SHA-384, which xml-crypto does not ship (same shape as its RsaSha256). */
export class RsaSha384 {
  getSignature(signedInfo: string, privateKey: string): string {
    return createSign('RSA-SHA384').update(signedInfo).sign(privateKey, 'base64');
  }
  verifySignature(material: string, key: string, signatureValue: string): boolean {
    return createVerify('RSA-SHA384').update(material).verify(key, signatureValue, 'base64');
  }
  getAlgorithmName() {
    return SIGNATURE.rsaSha384;
  }
}

export class Sha384 {
  getHash(xml: string): string {
    return createHash('sha384').update(xml, 'utf8').digest('base64');
  }
  getAlgorithmName() {
    return DIGEST.sha384;
  }
}

/** xml-crypto with SHA-1 (and HMAC, which it already leaves out) taken away, and SHA-384 added. */
export function strongSignedXml(options: ConstructorParameters<typeof SignedXml>[0]): SignedXml {
  const sig = new SignedXml(options);
  const algorithms = sig.SignatureAlgorithms as Record<string, unknown>;
  const hashes = sig.HashAlgorithms as Record<string, unknown>;
  sig.SignatureAlgorithms = {
    [SIGNATURE.rsaSha256]: algorithms[SIGNATURE.rsaSha256],
    [SIGNATURE.rsaSha384]: RsaSha384,
    [SIGNATURE.rsaSha512]: algorithms[SIGNATURE.rsaSha512],
  } as unknown as SignedXml['SignatureAlgorithms'];
  sig.HashAlgorithms = {
    [DIGEST.sha256]: hashes[DIGEST.sha256],
    [DIGEST.sha384]: Sha384,
    [DIGEST.sha512]: hashes[DIGEST.sha512],
  } as unknown as SignedXml['HashAlgorithms'];
  return sig;
}

const ACCEPTED_SIGNATURES = new Set<string>([SIGNATURE.rsaSha256, SIGNATURE.rsaSha384, SIGNATURE.rsaSha512]);
const ACCEPTED_DIGESTS = new Set<string>([DIGEST.sha256, DIGEST.sha384, DIGEST.sha512]);

/** xml-crypto's verdict; it throws for some invalid signatures (a reference it cannot find or digest): invalid too. */
function checkSignature(sig: SignedXml, xml: string): boolean {
  try {
    return sig.checkSignature(xml);
  } catch {
    return false;
  }
}

/**
 * Verifies the enveloped signature that is a direct child of `el` with the provider's certificate only (a KeyInfo in
 * the response is never trusted), and answers the root element of the canonical XML it signs: the only place values
 * are read from. Its one reference must be `el` itself (by ID, which xml-crypto also requires to be unique).
 */
function verifyEnveloped(xml: string, el: XmlNode, certificate: string): XmlNode {
  const what = el.localName;
  const signatures = children(el, NS.ds, 'Signature');
  if (signatures.length !== 1) throw refused(`The ${what} must carry exactly one signature`);
  const sig = strongSignedXml({ publicCert: certificate, getCertFromKeyInfo: () => null });
  try {
    sig.loadSignature(signatures[0] as never);
  } catch {
    throw refused(`The ${what}'s signature is malformed`);
  }
  const algorithm = sig.signatureAlgorithm ?? '';
  if (algorithm === SIGNATURE.rsaSha1) throw refused(`The ${what} is signed with RSA-SHA1, which is refused: the identity provider must sign with RSA-SHA256 or stronger`);
  if (!ACCEPTED_SIGNATURES.has(algorithm)) throw refused(`The ${what}'s signature algorithm is not accepted (RSA-SHA256, RSA-SHA384 or RSA-SHA512)`);
  const references = sig.getReferences();
  if (references.length !== 1) throw refused(`The ${what}'s signature must have exactly one reference`);
  const [reference] = references;
  if (reference.digestAlgorithm === DIGEST.sha1) throw refused(`The ${what}'s signature uses a SHA-1 digest, which is refused: the identity provider must use SHA-256 or stronger`);
  if (!ACCEPTED_DIGESTS.has(reference.digestAlgorithm)) throw refused(`The ${what}'s digest algorithm is not accepted (SHA-256, SHA-384 or SHA-512)`);
  if (!reference.transforms.every((t) => TRANSFORMS.has(t))) throw refused(`The ${what}'s signature uses a transform that is not accepted`);
  const id = el.getAttribute('ID');
  if (!id || reference.uri !== `#${id}`) throw refused(`The ${what}'s signature does not reference the ${what}`);
  if (!checkSignature(sig, xml)) throw refused(`The ${what}'s signature is not valid for the identity provider's certificate: the response was altered or signed with another key`);
  const signed = sig.getSignedReferences();
  if (signed.length !== 1) throw refused(`The ${what}'s signature must sign exactly one element`);
  const root = parseXml(signed[0]).documentElement!;
  if (root.localName !== el.localName || root.namespaceURI !== el.namespaceURI || root.getAttribute('ID') !== id) {
    throw refused(`The ${what}'s signature does not sign the ${what}`);
  }
  return root;
}

// ---------------------------------------------------------------------------------------------
// Response (HTTP-POST binding)

/** The `SAMLResponse` form value as XML text (base64 of UTF-8; line breaks allowed). */
export function decodeSamlResponse(value: string): string {
  const compact = value.replace(/\s+/g, '');
  if (!compact || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 === 1) throw malformed('SAMLResponse is not valid base64');
  let binary: string;
  try {
    binary = atob(compact);
  } catch {
    throw malformed('SAMLResponse is not valid base64');
  }
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw malformed('SAMLResponse is not UTF-8 text');
  }
}

/** What a verified response says. */
export interface SamlAssertion {
  /** The AuthnRequest it answers (SubjectConfirmationData InResponseTo, equal to the Response's if it has one). */
  inResponseTo: string;
  /** Normalized (lower case) as users store it. */
  email: string;
  displayName: string;
}

const EMAIL_ATTRIBUTES = ['email', 'mail', 'emailaddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'];
const EmailSchema = z.email().max(254);

/** Attribute values by name (names compared without case), from the signed Assertion. */
function attributesOf(assertion: XmlNode): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const statement of children(assertion, NS.saml, 'AttributeStatement')) {
    for (const attribute of children(statement, NS.saml, 'Attribute')) {
      const name = (attribute.getAttribute('Name') ?? '').toLowerCase();
      const values = children(attribute, NS.saml, 'AttributeValue').map(textOf).filter(Boolean);
      out.set(name, [...(out.get(name) ?? []), ...values]);
    }
  }
  return out;
}

function emailOf(assertion: XmlNode, attributes: Map<string, string[]>): string {
  const subject = child(assertion, NS.saml, 'Subject');
  const nameId = subject && child(subject, NS.saml, 'NameID');
  let email: string | undefined;
  let source = '';
  if (nameId && nameId.getAttribute('Format') === NAMEID_EMAIL) {
    email = textOf(nameId);
    source = 'NameID';
  } else {
    for (const name of EMAIL_ATTRIBUTES) {
      const value = attributes.get(name)?.[0];
      if (value) {
        email = value;
        source = `attribute "${name}"`;
        break;
      }
    }
  }
  if (!email) {
    throw refused(`The assertion names no email: send a NameID of Format ${NAMEID_EMAIL}, or an attribute named email, mail or http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress`);
  }
  if (!EmailSchema.safeParse(email).success) throw refused(`The assertion's email (${source}) is not an email address`);
  return email.toLowerCase();
}

/** Control characters (C0, C1) and the bidirectional controls, which could disguise a name: removed. */
const CONTROL_OR_BIDI = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

function cleanDisplayName(name: string): string {
  return name.replace(/\s+/g, ' ').replace(CONTROL_OR_BIDI, '').replace(/ {2,}/g, ' ').trim();
}

function displayNameOf(attributes: Map<string, string[]>, email: string): string {
  const first = (...names: string[]) => names.map((n) => attributes.get(n.toLowerCase())?.[0]).find(Boolean);
  const given = first('givenName', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname');
  const family = first('sn', 'surname', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname');
  const name =
    first('displayName', 'http://schemas.microsoft.com/identity/claims/displayname') ??
    first('name') ??
    ([given, family].filter(Boolean).join(' ') || email.slice(0, email.indexOf('@')));
  return [...cleanDisplayName(name)].slice(0, 64).join('') || email;
}

/** The second-level status codes of SAML 2.0 core 3.2.2.2: a fixed vocabulary, so its names may be shown. */
const STATUS_CODES = new Set([
  'Requester', 'Responder', 'VersionMismatch', 'AuthnFailed', 'InvalidAttrNameOrValue', 'InvalidNameIDPolicy', 'NoAuthnContext',
  'NoAvailableIDP', 'NoPassive', 'NoSupportedIDP', 'PartialLogout', 'ProxyCountExceeded', 'RequestDenied', 'RequestUnsupported',
  'RequestVersionDeprecated', 'RequestVersionTooHigh', 'RequestVersionTooLow', 'ResourceNotRecognized', 'TooManyResponses',
  'UnknownAttrProfile', 'UnknownPrincipal', 'UnsupportedBinding',
]);

/**
 * The status of the (not yet verified) response: success, or the names of its standard status codes. Nothing else
 * of it is shown (StatusMessage is the sender's free text, and the signature has not been checked).
 */
function statusOf(response: XmlNode): { success: boolean; codes: string[] } {
  const status = child(response, NS.samlp, 'Status');
  const code = status && child(status, NS.samlp, 'StatusCode');
  if (!code) throw malformed('The SAML response has no Status');
  const value = code.getAttribute('Value') ?? '';
  if (value === STATUS_SUCCESS) return { success: true, codes: [] };
  const sub = child(code, NS.samlp, 'StatusCode')?.getAttribute('Value') ?? '';
  const names = [value, sub].map((v) => v.replace('urn:oasis:names:tc:SAML:2.0:status:', '')).filter((name) => STATUS_CODES.has(name));
  return { success: false, codes: names };
}

/** Whether `now` is in the time window [NotBefore, NotOnOrAfter) of `el`, with the clock skew: the problem, or null. */
function windowProblem(el: XmlNode, now: number, what: string): string | null {
  const notBefore = timeAttr(el, 'NotBefore');
  const notOnOrAfter = timeAttr(el, 'NotOnOrAfter');
  if (notBefore !== null && now + CLOCK_SKEW_MS < notBefore) return `The ${what} is not valid yet (NotBefore ${el.getAttribute('NotBefore')})`;
  if (notOnOrAfter !== null && now - CLOCK_SKEW_MS >= notOnOrAfter) return `The ${what} has expired (NotOnOrAfter ${el.getAttribute('NotOnOrAfter')})`;
  return null;
}

/** Verified elements only (their values may be shown): the Issuer must be the provider's entity ID. */
function checkIssuer(el: XmlNode, idp: IdentityProvider, what: string, required: boolean) {
  const issuer = child(el, NS.saml, 'Issuer');
  if (!issuer) {
    if (required) throw refused(`The ${what} has no Issuer`);
    return;
  }
  const value = textOf(issuer);
  if (value !== idp.entityId) throw refused(`The ${what}'s Issuer "${value}" is not this provider's entity ID`);
}

/** The most elements, and the deepest nesting, of a response parsed at all: a few dozen of each are usual. */
export const MAX_RESPONSE_ELEMENTS = 2000;
export const MAX_RESPONSE_DEPTH = 64;

/**
 * Refuses a document with too many elements or too deep a nesting before it is parsed (parsing, canonicalization
 * and the signature's checks cost in proportion, and nothing is verified yet). A cheap scan of the tags, which
 * overestimates when markup hides in comments or CDATA (never met in SAML) and never underestimates.
 */
export function checkDocumentSize(xml: string): void {
  let elements = 0;
  let depth = 0;
  for (let i = xml.indexOf('<'); i !== -1; ) {
    const next = xml.charCodeAt(i + 1);
    const end = xml.indexOf('>', i + 1);
    if (end === -1) return; // not well-formed: the parser refuses it
    if (next === 0x2f /* / */) depth--;
    else if (next !== 0x21 /* ! */ && next !== 0x3f /* ? */) {
      if (++elements > MAX_RESPONSE_ELEMENTS) throw malformed(`The SAML response has more than ${MAX_RESPONSE_ELEMENTS} elements`);
      if (xml.charCodeAt(end - 1) !== 0x2f && ++depth > MAX_RESPONSE_DEPTH) throw malformed(`The SAML response nests elements more than ${MAX_RESPONSE_DEPTH} deep`);
    }
    i = xml.indexOf('<', end + 1);
  }
}

/**
 * The unverified document's shape: a SAML 2.0 Response to our ACS URL, with a success status and exactly one plain
 * Assertion as its direct child. Nothing of the document is echoed in a refusal: it is not verified yet.
 */
function checkEnvelope(doc: XmlDocument, sp: ServiceProvider): { response: XmlNode; assertion: XmlNode } {
  const response = doc.documentElement!;
  if (!is(response, NS.samlp, 'Response')) throw malformed('The SAML message is not a samlp:Response');
  if (response.getAttribute('Version') !== '2.0') throw malformed('The SAML response is not SAML 2.0 (Version="2.0")');
  if (!response.getAttribute('ID')) throw malformed('The SAML response has no ID');
  const destination = response.getAttribute('Destination');
  if (!destination) throw refused(`The SAML response has no Destination: it must be ${sp.acsUrl}`);
  if (destination !== sp.acsUrl) throw refused(`The SAML response's Destination is not this provider's ACS URL ${sp.acsUrl}`);
  const status = statusOf(response);
  if (!status.success) {
    throw refused(`The identity provider did not log you in${status.codes.length ? ` (status ${status.codes.join(', ')})` : ''}`);
  }
  const encrypted = ['EncryptedAssertion', 'EncryptedID', 'EncryptedAttribute'].some((name) => doc.getElementsByTagNameNS(NS.saml, name).length > 0);
  if (encrypted || doc.getElementsByTagNameNS(NS.xenc, 'EncryptedData').length > 0) {
    throw refused('Encrypted assertions and identifiers are not supported: configure the identity provider to sign the assertion without encrypting it');
  }
  const assertions = doc.getElementsByTagNameNS(NS.saml, 'Assertion');
  if (assertions.length !== 1) throw refused(`The SAML response must hold exactly one Assertion (it holds ${assertions.length})`);
  const assertion = assertions[0];
  if (assertion.parentNode !== response) throw refused('The Assertion must be a direct child of the Response');
  return { response, assertion };
}

/**
 * The signatures: the Response's and/or the Assertion's, every one present verified with the provider's
 * certificate. Answers the signed XML to read values from: the Assertion's, and the Response's envelope (the
 * document's own when only the Assertion is signed: its Destination, Status and InResponseTo are then confirmed
 * by the Assertion's own fields).
 */
function verifySignatures(xml: string, parts: { response: XmlNode; assertion: XmlNode }, sp: ServiceProvider, idp: IdentityProvider) {
  const { response, assertion } = parts;
  const responseSigned = children(response, NS.ds, 'Signature').length > 0;
  const assertionSigned = children(assertion, NS.ds, 'Signature').length > 0;
  if (!responseSigned && !assertionSigned) throw refused('The SAML response is not signed: the identity provider must sign the Assertion or the Response');
  const signedResponse = responseSigned ? verifyEnveloped(xml, response, idp.certificate) : null;
  const assertionsInResponse = signedResponse ? children(signedResponse, NS.saml, 'Assertion') : [];
  if (signedResponse && assertionsInResponse.length !== 1) throw refused('The signed Response must hold exactly one Assertion');
  const signedAssertion = assertionSigned ? verifyEnveloped(xml, assertion, idp.certificate) : assertionsInResponse[0];
  if (signedResponse && signedResponse.getAttribute('Destination') !== sp.acsUrl) throw refused("The signed Response's Destination is not this provider's ACS URL");
  return { envelope: signedResponse ?? response, assertion: signedAssertion };
}

/** The signed Assertion's Conditions: its time window, and every AudienceRestriction naming this service provider. */
function checkConditions(assertion: XmlNode, sp: ServiceProvider, now: number) {
  const conditions = child(assertion, NS.saml, 'Conditions');
  if (!conditions) throw refused('The Assertion has no Conditions: an AudienceRestriction naming this service provider is required');
  const problem = windowProblem(conditions, now, 'Assertion');
  if (problem) throw refused(problem);
  const restrictions = children(conditions, NS.saml, 'AudienceRestriction');
  if (restrictions.length === 0) throw refused(`The Assertion has no AudienceRestriction: its Audience must be ${sp.entityId}`);
  for (const restriction of restrictions) {
    const audiences = children(restriction, NS.saml, 'Audience').map(textOf);
    if (!audiences.includes(sp.entityId)) throw refused(`The Assertion's audience (${audiences.join(', ') || 'none'}) is not this service provider (${sp.entityId})`);
  }
}

/** The Web Browser SSO profile's assertion states an authentication. */
function checkAuthnStatement(assertion: XmlNode) {
  if (children(assertion, NS.saml, 'AuthnStatement').length === 0) throw refused('The Assertion has no AuthnStatement: it does not say that the user authenticated');
}

/** Why a bearer SubjectConfirmation cannot be used (or null), and the request it answers. */
function bearerProblem(bearer: XmlNode, sp: ServiceProvider, now: number): { problem: string } | { inResponseTo: string } {
  const data = child(bearer, NS.saml, 'SubjectConfirmationData');
  if (!data) return { problem: 'The bearer SubjectConfirmation has no SubjectConfirmationData' };
  const recipient = data.getAttribute('Recipient');
  if (recipient !== sp.acsUrl) return { problem: `The SubjectConfirmationData Recipient "${recipient ?? ''}" is not this provider's ACS URL ${sp.acsUrl}` };
  if (!data.hasAttribute('NotOnOrAfter')) return { problem: 'The SubjectConfirmationData has no NotOnOrAfter' };
  if (data.hasAttribute('NotBefore')) return { problem: 'A bearer SubjectConfirmationData must not have NotBefore' };
  const expired = windowProblem(data, now, 'subject confirmation');
  if (expired) return { problem: expired };
  const inResponseTo = data.getAttribute('InResponseTo');
  if (!inResponseTo) {
    return { problem: 'Unsolicited (IdP-initiated) SAML responses are not accepted: start the login from this service (its start URL) so that the response answers its request' };
  }
  return { inResponseTo };
}

/**
 * The request the response answers: the InResponseTo of the first usable bearer confirmation of the signed
 * Assertion (none usable: the first one's problem), which the Response's own InResponseTo, if any, must equal.
 */
function bearerConfirmation(assertion: XmlNode, envelope: XmlNode, sp: ServiceProvider, now: number): string {
  const subject = child(assertion, NS.saml, 'Subject');
  if (!subject) throw refused('The Assertion has no Subject');
  const bearers = children(subject, NS.saml, 'SubjectConfirmation').filter((c) => c.getAttribute('Method') === BEARER);
  if (bearers.length === 0) throw refused('The Assertion has no bearer SubjectConfirmation');
  const verdicts = bearers.map((bearer) => bearerProblem(bearer, sp, now));
  const usable = verdicts.find((v) => 'inResponseTo' in v);
  if (!usable || !('inResponseTo' in usable)) throw refused((verdicts[0] as { problem: string }).problem);
  const envelopeInResponseTo = envelope.getAttribute('InResponseTo');
  if (envelopeInResponseTo && envelopeInResponseTo !== usable.inResponseTo) throw refused("The Response's InResponseTo differs from the Assertion's");
  return usable.inResponseTo;
}

/**
 * Verifies a `SAMLResponse` form value for one provider, cheapest checks first, and answers what its signed Assertion
 * says. Everything that is refused throws a `SamlRefusal` (400 malformed, 403 refused); refusals before the signature
 * is verified say nothing the document says. Whether `inResponseTo` names an unused AuthnRequest of this provider is
 * the caller's check (services/sso/login), as is RelayState.
 */
export function verifySamlResponse(samlResponse: string, options: { sp: ServiceProvider; idp: IdentityProvider; now: Date }): SamlAssertion {
  const { sp, idp } = options;
  const now = options.now.getTime();
  const xml = decodeSamlResponse(samlResponse);
  checkDocumentSize(xml);
  const parts = checkEnvelope(parseXml(xml), sp);
  // From here on, values come from the signed XML only.
  const { envelope, assertion } = verifySignatures(xml, parts, sp, idp);
  checkIssuer(assertion, idp, 'Assertion', true);
  checkIssuer(envelope, idp, 'Response', false);
  checkConditions(assertion, sp, now);
  checkAuthnStatement(assertion);
  const inResponseTo = bearerConfirmation(assertion, envelope, sp, now);
  const attributes = attributesOf(assertion);
  const email = emailOf(assertion, attributes);
  return { inResponseTo, email, displayName: displayNameOf(attributes, email) };
}
