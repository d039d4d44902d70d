/**
 * Values built from the JSON schemas of the served `/openapi.json`, for the sweeps that call every operation
 * (test/helpers/hostile-sweep.ts, test/helpers/adversarial.ts).
 */
export type Schema = Record<string, any>;

/** The schema a `$ref` names among `components` (followed up to 20 times). */
export function resolveSchema(components: Record<string, Schema>, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let i = 0; current?.$ref && i < 20; i++) current = components[String(current.$ref).split('/').pop()!];
  return current;
}

/**
 * A minimal valid value of a JSON schema: the required properties only, first enum values and first variants.
 * `property` may choose a required property's value (undefined: the minimal one).
 */
export function minimalValue(
  components: Record<string, Schema>,
  input: Schema | undefined,
  property?: (key: string, schema: Schema | undefined) => unknown,
  depth = 0,
): unknown {
  const schema = resolveSchema(components, input);
  if (!schema || depth > 10) return undefined;
  const minimal = (s: Schema | undefined) => minimalValue(components, s, property, depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map(minimal));
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return minimal(variants[0]);
  if (schema.enum) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'email') return 'someone@example.test';
      if (schema.format === 'uri') return 'https://example.test/';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'number':
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => minimal(schema.items));
    case 'object':
    case undefined:
      return Object.fromEntries(
        (schema.required ?? []).map((key: string) => {
          const chosen = property?.(key, resolveSchema(components, schema.properties?.[key]));
          return [key, chosen !== undefined ? chosen : minimal(schema.properties?.[key])];
        }),
      );
    default:
      return undefined;
  }
}
