/**
 * The part of `node:crypto` this Worker uses (workerd implements it under `nodejs_compat`). Declared here
 * rather than through @types/node, whose globals would mix Node's APIs into the Workers types.
 */
declare module 'node:crypto' {
  export class X509Certificate {
    constructor(buffer: string | ArrayBufferView);
    readonly subject: string;
    readonly issuer: string;
    readonly validFrom: string;
    readonly validTo: string;
    readonly fingerprint256: string;
  }

  // services/sso/saml: XML signatures with RSA-SHA384, which xml-crypto does not ship.
  export interface Hash {
    update(data: string, encoding?: 'utf8'): Hash;
    digest(encoding: 'base64'): string;
  }
  export interface Sign {
    update(data: string): Sign;
    sign(privateKey: string, encoding: 'base64'): string;
  }
  export interface Verify {
    update(data: string): Verify;
    verify(publicKey: string, signature: string, encoding: 'base64'): boolean;
  }
  export function createHash(algorithm: string): Hash;
  export function createSign(algorithm: string): Sign;
  export function createVerify(algorithm: string): Verify;
}
