/**
 * `planner tools`: what a catalog offers, as a worker started in this folder would serve it. Pure views of ToolSpecs
 * (each param's name, type, whether it is required, its enum values), the JSON contract of `planner tools --json`.
 */
import type { ToolSpec } from '../domain/tool-spec';
import { terminalSafe } from './safe-text';

export interface ToolParamView {
  name: string;
  /** The JSON Schema type ("string", "integer", "array of string", "string | null", …); "any" when it names none. */
  type: string;
  required: boolean;
  /** The allowed values, when the schema lists them (an enum or const); else null. */
  enum: unknown[] | null;
  description: string | null;
}

export interface ToolView {
  name: string;
  description: string;
  params: ToolParamView[];
  /** Safe to call twice with the same params: retried freely. Not idempotent means it has side effects. */
  idempotent: boolean;
  sideEffects: boolean;
  taskQueue: string;
}

export interface CatalogView {
  catalog: string;
  /** Why the catalog cannot be served now (its MCP server did not start); its tools are then unknown. */
  unavailable: string | null;
  tools: ToolView[];
}

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(schema: Schema): string {
  const { type } = schema;
  if (Array.isArray(type)) return type.map(String).join(' | ');
  if (type === 'array') return isSchema(schema.items) ? `array of ${typeOf(schema.items)}` : 'array';
  if (typeof type === 'string') return type;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return [...new Set(options.filter(isSchema).map(typeOf))].join(' | ');
  }
  if (Array.isArray(schema.enum))
    return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))].join(' | ');
  if ('const' in schema) return schema.const === null ? 'null' : typeof schema.const;
  return 'any';
}

function enumOf(schema: Schema): unknown[] | null {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options)) continue;
    const values = options.filter(isSchema).map(enumOf);
    if (values.length > 0 && values.every((v) => v !== null)) return values.flat();
  }
  if (schema.type === 'array' && isSchema(schema.items)) return enumOf(schema.items);
  return null;
}

export function toolView(spec: ToolSpec): ToolView {
  const properties = isSchema(spec.parameters.properties) ? spec.parameters.properties : {};
  const params = Object.entries(properties).map(([name, raw]): ToolParamView => {
    const schema = isSchema(raw) ? raw : {};
    return {
      name,
      type: typeOf(schema),
      required: spec.required.includes(name),
      enum: enumOf(schema),
      description: typeof schema.description === 'string' ? schema.description : null,
    };
  });
  return {
    name: spec.name,
    description: spec.description,
    params,
    idempotent: spec.idempotent,
    sideEffects: !spec.idempotent,
    taskQueue: spec.task_queue,
  };
}

const safe = (text: string): string => terminalSafe(text);

/** A catalog as a person reads it: each tool, its params (required marked, enum values listed), retry safety and queue. */
export function renderCatalogs(catalogs: readonly CatalogView[]): string[] {
  const lines: string[] = [];
  for (const c of catalogs) {
    if (lines.length) lines.push('');
    if (c.unavailable !== null) {
      lines.push(`Catalog ${safe(c.catalog)}: unavailable (${safe(c.unavailable)})`);
      continue;
    }
    lines.push(`Catalog ${safe(c.catalog)}: ${c.tools.length} tool(s)`);
    for (const t of c.tools) {
      lines.push(
        '',
        `${safe(t.name)}  [${t.idempotent ? 'idempotent' : 'side effects: runs once, never retried blindly'}] queue ${safe(t.taskQueue)}`,
        `  ${safe(t.description)}`,
      );
      if (t.params.length === 0) lines.push('  (no params)');
      for (const p of t.params) {
        const values = p.enum ? ` one of ${p.enum.map((v) => safe(JSON.stringify(v))).join(', ')}` : '';
        lines.push(
          `  ${safe(p.name)}${p.required ? '' : '?'}: ${safe(p.type)}${values}${p.description ? ` · ${safe(p.description)}` : ''}`,
        );
      }
    }
  }
  if (lines.length) lines.push('', '(? marks an optional param)');
  return lines;
}
