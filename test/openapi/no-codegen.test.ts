import { afterEach, describe, expect, it } from 'vitest';
import { parseSpecText, validateSpec } from '../../src/services/openapi/parse';
import petstoreYaml from '../fixtures/openapi/petstore.yaml?raw';
import swaggerPetstoreJson from '../fixtures/openapi/swagger-petstore.json?raw';

/**
 * workerd refuses code generation from strings (`new Function`, `eval`) in production and under `wrangler
 * dev`, but the vitest pool allows it: a validator that compiles schemas into functions (ajv) passes every
 * other test and fails every spec once deployed. Here code generation is refused as workerd refuses it,
 * in a file of its own so that no validator was compiled before.
 */
const realFunction = globalThis.Function;
const realEval = globalThis.eval;
const refuse = () => {
  throw new EvalError('Code generation from strings disallowed for this context');
};

afterEach(() => {
  globalThis.Function = realFunction;
  globalThis.eval = realEval;
});

describe('OpenAPI validation without code generation', () => {
  it('validates OpenAPI 3.0, 3.1 and Swagger 2.0 documents, and reports an invalid one, with Function and eval refused', async () => {
    globalThis.Function = new Proxy(realFunction, { construct: refuse, apply: refuse });
    globalThis.eval = refuse as typeof eval;
    expect(() => new Function('return 1')).toThrow(EvalError);

    const petstore = parseSpecText(petstoreYaml, 'openapi.yaml');
    expect((await validateSpec({ 'openapi.yaml': petstore.document }, 'openapi.yaml')).version).toBe('3.0');
    const swagger = parseSpecText(swaggerPetstoreJson, 'swagger.json');
    expect((await validateSpec({ 'swagger.json': swagger.document }, 'swagger.json')).version).toBe('2.0');
    const v31 = { openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: { '/a': { get: { responses: { '200': { description: 'ok' } } } } } };
    expect((await validateSpec({ 'openapi.json': v31 }, 'openapi.json')).version).toBe('3.1');

    const unknown = { ...v31, info: { title: 'T', version: '1', colour: 'red' } };
    await expect(validateSpec({ 'openapi.json': unknown }, 'openapi.json')).rejects.toThrow('/info/colour: is not allowed here');
  });
});
