import { badRequest } from '../../lib/errors';
import { jsonDepth } from '../../lib/json-depth';

/** Where a configuration applies: the integration's `configurations` has one schema per target. */
export type ConfigurationTarget = 'account' | 'space' | 'site';

/** A string value of a configuration may be at most this long. */
export const MAX_CONFIGURATION_STRING = 4096;
/** The whole configuration, as JSON, may be at most this many characters (what an integration keeps there for itself included). */
export const MAX_CONFIGURATION_BYTES = 64 * 1024;
/** How deeply a configuration's values may nest (the configuration object itself is level 1). */
export const MAX_CONFIGURATION_DEPTH = 10;

/** One property of GitBook's `IntegrationConfigurationSchema` (what a published manifest declares). */
interface PropertySchema {
  type?: unknown;
  enum?: unknown;
  default?: unknown;
}

interface ConfigurationSchema {
  properties?: Record<string, PropertySchema>;
  required?: unknown;
}

export interface ValidateOptions {
  /**
   * Strict (users, through the app): every property must be declared by the schema and every required one
   * present. Lenient (the integration's own tokens): undeclared properties are kept, as integrations store
   * their own state there (OAuth credentials and the like, as GitBook's own integrations do), and required
   * ones may still be missing (the user has not configured them yet); declared ones are still checked.
   */
  strict: boolean;
}

const KIND_OF: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
};

/** The schema of `target` in an integration's `configurations` (none: the integration declares no settings there). */
export function configurationSchemaOf(configurations: Record<string, unknown> | null | undefined, target: ConfigurationTarget): ConfigurationSchema | null {
  const schema = configurations?.[target];
  return schema && typeof schema === 'object' && !Array.isArray(schema) ? (schema as ConfigurationSchema) : null;
}

/**
 * The ContentKit component that configures `target` (GitBook's `IntegrationConfigurationComponent`:
 * `{componentId}` instead of a property schema), or null when the target has a property schema or nothing.
 */
export function configurationComponentOf(configurations: Record<string, unknown> | null | undefined, target: ConfigurationTarget): string | null {
  const componentId = (configurationSchemaOf(configurations, target) as { componentId?: unknown } | null)?.componentId;
  return typeof componentId === 'string' ? componentId : null;
}

/** 400 when a configuration nests deeper than `MAX_CONFIGURATION_DEPTH` or is larger than `MAX_CONFIGURATION_BYTES` as JSON. */
function assertBounded(value: Record<string, unknown>): void {
  // Measured without recursion before anything walks it recursively (JSON.stringify).
  if (jsonDepth(value, MAX_CONFIGURATION_DEPTH) > MAX_CONFIGURATION_DEPTH) throw badRequest(`configuration: at most ${MAX_CONFIGURATION_DEPTH} levels of nesting`);
  if (JSON.stringify(value).length > MAX_CONFIGURATION_BYTES) throw badRequest(`configuration: at most ${MAX_CONFIGURATION_BYTES} characters as JSON`);
}

/**
 * Checks a configuration against the integration's schema for `target` and answers it with the defaults
 * of absent properties applied; 400 naming the property otherwise. A null value clears a property. A target
 * configured through a component accepts any JSON object (its component's to shape), bounded like every one.
 */
export function validateConfiguration(
  configurations: Record<string, unknown> | null | undefined,
  target: ConfigurationTarget,
  value: Record<string, unknown>,
  options: ValidateOptions,
): Record<string, unknown> {
  assertBounded(value);
  // A component's configuration is what the component saves: any JSON object, for the integration to read back.
  if (configurationComponentOf(configurations, target) !== null) {
    return Object.fromEntries(Object.entries(value).filter(([, given]) => given !== null && given !== undefined));
  }
  const schema = configurationSchemaOf(configurations, target);
  const properties = schema?.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const where = `${target} configuration`;
  const out: Record<string, unknown> = {};
  for (const [name, given] of Object.entries(value)) {
    if (given === null || given === undefined) continue;
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!property) {
      if (options.strict) throw badRequest(`configuration.${name}: not a property of this integration's ${where}`);
      if (typeof given === 'string' && given.length > MAX_CONFIGURATION_STRING) {
        throw badRequest(`configuration.${name}: at most ${MAX_CONFIGURATION_STRING} characters`);
      }
      out[name] = given;
      continue;
    }
    const type = typeof property.type === 'string' ? property.type : 'string';
    // A button (GitBook's OAuth "Connect") holds what its flow stores under its name: the credentials object
    // `createOAuthHandler` saves with the integration's own token. Members press it; they give it no value.
    if (type === 'button') {
      if (options.strict) throw badRequest(`configuration.${name}: a button takes no value`);
      out[name] = given;
      continue;
    }
    const isKind = KIND_OF[type];
    if (isKind && !isKind(given)) throw badRequest(`configuration.${name}: expected a ${type}`);
    if (typeof given === 'string' && given.length > MAX_CONFIGURATION_STRING) {
      throw badRequest(`configuration.${name}: at most ${MAX_CONFIGURATION_STRING} characters`);
    }
    if (Array.isArray(property.enum) && !property.enum.includes(given)) {
      throw badRequest(`configuration.${name}: must be one of ${property.enum.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    out[name] = given;
  }
  for (const [name, property] of Object.entries(properties)) {
    if (out[name] === undefined && property && property.default !== undefined && property.type !== 'button') out[name] = property.default;
  }
  if (options.strict && Array.isArray(schema?.required)) {
    for (const name of schema.required) {
      if (typeof name === 'string' && out[name] === undefined) throw badRequest(`configuration.${name}: required by this integration's ${where}`);
    }
  }
  assertBounded(out);
  return out;
}

/** The configuration a new installation starts with: the schema's defaults (nothing is required before a user configures it). */
export function defaultConfiguration(configurations: Record<string, unknown> | null | undefined, target: ConfigurationTarget): Record<string, unknown> {
  return validateConfiguration(configurations, target, {}, { strict: false });
}
