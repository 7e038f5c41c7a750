/**
 * ToolSpec: one entry of the tool catalog. Params are described as JSON Schema, the form the catalog is stored and
 * shown to the LLM in; native tools build it from zod, MCP tools arrive with it. Costs are estimates per call.
 */
import { z } from 'zod';
import { InvalidInputError, formatZodIssues } from './errors';
import type { JsonSchema } from './json-schema';
import { PATH_KEYWORD } from './paths';
import { isRecord } from './walk';

const ObjectSchema = z.custom<JsonSchema>((v) => isRecord(v) && v.type === 'object', {
  message: 'must be a JSON Schema with type "object"',
});

export const ToolSpecSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][\w.:/-]{0,127}$/, 'letters, digits and _ . : / - only, at most 128 chars'),
    description: z.string().min(1),
    parameters: ObjectSchema,
    /** Names of required params; always the same list as `parameters.required`. */
    required: z.array(z.string()),
    cost_per_call_usd: z.number().nonnegative().finite().default(0),
    tokens_per_call: z.number().int().nonnegative().default(0),
    /** Task queue of the worker pool that serves this tool. */
    task_queue: z.string().min(1),
    /** Safe to call twice with the same params (so safe to retry). */
    idempotent: z.boolean(),
    /** Capability tags and keywords, used to match requirements to tools. */
    tags: z.array(z.string()).default([]),
    /** JSON Schema of the result's `data` (what `${step[N].data...}` templates read), when known. */
    result: z.custom<JsonSchema>((v) => isRecord(v), { message: 'must be a JSON Schema object' }).optional(),
    /**
     * How the workspace checks find file params (see src/domain/paths.ts): "marked" (tools built from zod) means
     * exactly the params marked `"x-path": true` (pathParam()); "by-name" (the default, for schemas the planner did
     * not write, such as MCP servers') adds the name/value heuristic to the marks.
     */
    path_params: z.enum(['marked', 'by-name']).default('by-name'),
  })
  .refine((t) => sameSet(t.required, t.parameters.required ?? []), {
    path: ['required'],
    message: 'must list exactly the names in parameters.required',
  });

export type ToolSpec = z.output<typeof ToolSpecSchema>;
export type ToolDefinition = Omit<z.input<typeof ToolSpecSchema>, 'required'>;

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((x) => set.has(x));
}

/** Builds a ToolSpec from a JSON Schema (e.g. an MCP tool); throws InvalidInputError when the definition is bad. */
export function toolSpecFromJsonSchema(def: ToolDefinition): ToolSpec {
  const parameters = def.parameters as unknown;
  const required = isRecord(parameters) && Array.isArray(parameters.required) ? parameters.required : [];
  const parsed = ToolSpecSchema.safeParse({ ...def, required });
  if (!parsed.success) {
    throw new InvalidInputError(
      `invalid tool definition "${String(def.name)}"`,
      'Fix the tool definition fields listed.',
      {
        issues: formatZodIssues(parsed.error),
      },
    );
  }
  return parsed.data;
}

/**
 * A string param that is a file path: the workspace checks keep it inside the run's workspace_root (lexically in plan
 * validation, by real path with symlinks followed in executeStep). It appears in the JSON Schema as
 * `{"type": "string", "x-path": true}`; use it for every path param of a tool (also inside arrays and objects),
 * because a tool built with toolSpecFromZod has no other path params.
 */
export function pathParam(description?: string): z.ZodString {
  const schema = z
    .string()
    .min(1)
    .meta({ [PATH_KEYWORD]: true });
  return description === undefined ? schema : schema.describe(description);
}

/**
 * Builds a ToolSpec from a zod object schema. Params are described in their input form (fields with defaults are
 * optional), and unknown params are rejected unless the schema says otherwise: z.object would silently strip them,
 * which hides a planner mistake.
 */
export function toolSpecFromZod(
  def: Omit<ToolDefinition, 'parameters' | 'result'> & { params: z.ZodObject; result?: z.ZodType },
): ToolSpec {
  const { params, result, ...rest } = def;
  const jsonSchema = (s: z.ZodType, io: 'input' | 'output') => {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as JsonSchema;
    return schema;
  };
  return toolSpecFromJsonSchema({
    path_params: 'marked',
    ...rest,
    parameters: { additionalProperties: false, ...jsonSchema(params, 'input') },
    ...(result ? { result: jsonSchema(result, 'output') } : {}),
  });
}

export function indexCatalog(catalog: readonly ToolSpec[]): ReadonlyMap<string, ToolSpec> {
  return new Map(catalog.map((t) => [t.name, t]));
}
