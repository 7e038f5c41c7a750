/**
 * A small JSON Schema checker for tool params (no Node, no code generation, so it runs in workflow code).
 *
 * Supported keywords: type (string or list; object, array, string, number, integer, boolean, null), properties,
 * required, additionalProperties (false or a schema), items (one schema), enum, const, minimum, maximum,
 * format (date, date-time; checked loosely), anyOf and oneOf (oneOf is checked as anyOf, i.e. more leniently).
 * Every other keyword ($ref, pattern, minLength, ...) is ignored, which can only make the check accept more.
 *
 * A string that is one whole `${step[N]...}` template is accepted for any type (its value exists only at run time),
 * except a `.*` template, which always gives a list, where the schema takes no array.
 * A string with a template embedded in other text must be allowed as a string, but enum/const/format are skipped.
 */
import { containsTemplate, isWholeTemplate } from './templates';
import { isRecord } from './walk';

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export interface JsonSchema {
  type?: JsonType | JsonType[];
  properties?: Record<string, JsonSchema | boolean>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema | boolean;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  format?: string;
  anyOf?: (JsonSchema | boolean)[];
  oneOf?: (JsonSchema | boolean)[];
  description?: string;
  [keyword: string]: unknown;
}

export interface SchemaViolation {
  /** Location in the checked value, e.g. `filters.ids[0]`; "" is the value itself. */
  path: string;
  keyword: string;
  message: string;
}

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATE_TIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

export function checkJsonSchema(value: unknown, schema: JsonSchema | boolean): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  check(value, schema, '', out);
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return true; // unknown type names are ignored, like unknown keywords
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
}

function check(value: unknown, schema: JsonSchema | boolean, path: string, out: SchemaViolation[]): void {
  if (schema === false) {
    out.push({ path, keyword: 'false', message: 'no value is allowed here' });
    return;
  }
  if (!isRecord(schema)) return; // `true` or not a schema: accepts anything
  const isText = typeof value === 'string';
  if (isText && isWholeTemplate(value)) {
    // `.*` maps over every item, so the template gives a list: a top-level param that takes one value runs the step
    // once per value (./fan-out); deeper in the params a list would fail at run time.
    const types = schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
    const topLevel = path !== '' && !/[.[]/.test(path);
    if (value.includes('.*') && types && !types.includes('array') && !topLevel) {
      out.push({
        path,
        keyword: 'type',
        message: `expected ${types.join(' or ')}, but ${value} gives a list (one value per item); use [0] instead of .* for the first item's value`,
      });
    }
    return;
  }
  const embedded = isText && containsTemplate(value);

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => hasType(value, t))) {
      out.push({ path, keyword: 'type', message: `expected ${types.join(' or ')}, got ${typeOf(value)}` });
      return; // the remaining keywords would only repeat the same mistake
    }
  }
  if (!embedded) {
    if (schema.enum !== undefined && !schema.enum.some((e) => sameJson(e, value))) {
      out.push({
        path,
        keyword: 'enum',
        message: `must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`,
      });
    }
    if ('const' in schema && !sameJson(schema.const, value)) {
      out.push({ path, keyword: 'const', message: `must be ${JSON.stringify(schema.const)}` });
    }
    if (isText && schema.format === 'date' && !DATE.test(value)) {
      out.push({ path, keyword: 'format', message: 'must be a date (YYYY-MM-DD)' });
    }
    if (isText && schema.format === 'date-time' && !DATE_TIME.test(value)) {
      out.push({ path, keyword: 'format', message: 'must be a date-time (ISO 8601)' });
    }
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) {
      out.push({ path, keyword: 'minimum', message: `must be >= ${schema.minimum}` });
    }
    if (typeof schema.maximum === 'number' && value > schema.maximum) {
      out.push({ path, keyword: 'maximum', message: `must be <= ${schema.maximum}` });
    }
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && !alternatives.some((alt) => checkJsonSchema(value, alt).length === 0)) {
    out.push({ path, keyword: 'anyOf', message: `matches none of the ${alternatives.length} allowed shapes` });
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => check(item, schema.items!, join(path, i), out));
  }
  if (isRecord(value)) checkObject(value, schema, path, out);
}

function checkObject(value: Record<string, unknown>, schema: JsonSchema, path: string, out: SchemaViolation[]): void {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name))
      out.push({ path: join(path, name), keyword: 'required', message: `missing required param "${name}"` });
  }
  for (const key of Object.keys(value)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (sub !== undefined) check(value[key], sub, join(path, key), out);
    else if (schema.additionalProperties === false) {
      const known = Object.keys(properties);
      out.push({
        path: join(path, key),
        keyword: 'additionalProperties',
        message: `unknown param "${key}"${known.length ? ` (allowed: ${known.join(', ')})` : ''}`,
      });
    } else if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
      check(value[key], schema.additionalProperties, join(path, key), out);
    }
  }
}
