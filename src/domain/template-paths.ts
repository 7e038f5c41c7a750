/**
 * A template's path checked against what it reads: the referenced tool's result schema (`ToolSpec.result`, the JSON
 * Schema of the step result's `data`). `${step[0].data.length}` on a list of rows would only fail when the step
 * runs, after its dependencies did their work, and cost a re-plan; found here, it is one correction turn. Schemas
 * that say too little to judge (no type, anyOf, open objects) let the path pass.
 */
import type { JsonSchema } from './json-schema';
import type { TemplateSegment } from './templates';
import { isRecord } from './walk';

function typesOf(schema: JsonSchema): string[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

function describe(segment: TemplateSegment): string {
  return segment.kind === 'key' ? `.${segment.key}` : segment.kind === 'index' ? `[${segment.index}]` : '.*';
}

/** Why `path` (after `.data`) cannot read a value of `schema`, or null when it can or the schema cannot say. */
export function templatePathProblem(path: readonly TemplateSegment[], schema: JsonSchema): string | null {
  let current: JsonSchema = schema;
  let at = 'data';
  for (const segment of path) {
    const types = typesOf(current);
    if (types.length !== 1) return null;
    if (segment.kind === 'key') {
      if (types[0] === 'array') {
        return `${at} is a list: it has no field "${segment.key}" (use ${at}.*.${segment.key} for every item's, or ${at}[0].${segment.key} for the first item's)`;
      }
      if (types[0] !== 'object') return `${at} is a ${types[0]}: it has no field "${segment.key}"`;
      const next = current.properties?.[segment.key];
      if (next === undefined) {
        if (current.additionalProperties !== false || !current.properties) return null;
        return `${at} has no field "${segment.key}" (its fields: ${Object.keys(current.properties).join(', ')})`;
      }
      if (!isRecord(next)) return null;
      current = next;
    } else {
      if (types[0] !== 'array') return `${at} is a ${types[0]}, not a list: ${describe(segment)} reads nothing`;
      if (!isRecord(current.items)) return null;
      current = current.items;
    }
    at += describe(segment);
  }
  return null;
}
