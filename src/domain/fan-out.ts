/**
 * A step whose param takes one value, given a list by a `.*` template ("facility_id": "${step[0].data.*.id}" after
 * a lookup that found two facilities), runs once per value and returns the rows of all the calls: the plan then
 * answers for every facility, not the first one only. Values repeat once (the same id twice is one call), and a
 * step fans out to at most MAX_FAN_OUT calls.
 */
import { InvalidInputError } from './errors';
import type { JsonSchema } from './json-schema';
import { isWholeTemplate, scanTemplates } from './templates';
import { isRecord } from './walk';

export const MAX_FAN_OUT = 100;

/** Whether `schema` takes one value, so a list given to it means one call per value. */
function takesOneValue(schema: unknown): boolean {
  if (!isRecord(schema) || schema.type === undefined) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return !types.includes('array');
}

/**
 * The params of a step that may fan it out, as the plan writes them: each a top-level `.*` template given to a param
 * that takes one value, with the index of the step whose result gives the values.
 */
export function fannedParams(
  params: Record<string, unknown>,
  parameters: JsonSchema,
): { key: string; from_step: number }[] {
  const properties = parameters.properties ?? {};
  return Object.entries(params).flatMap(([key, text]) => {
    if (typeof text !== 'string' || !isWholeTemplate(text) || !text.includes('.*')) return [];
    const ref = scanTemplates(text).refs[0];
    return ref && takesOneValue(properties[key]) ? [{ key, from_step: ref.step }] : [];
  });
}

/**
 * The param sets a step runs with: `[resolved]`, or one per combination of the values of its fanned params (see
 * fannedParams) that resolved to a list. An empty list means no call (nothing to ask for).
 */
export function fanOut(
  original: Record<string, unknown>,
  resolved: Record<string, unknown>,
  parameters: JsonSchema,
): Record<string, unknown>[] {
  const fanned = fannedParams(original, parameters)
    .map((p) => p.key)
    .filter((key) => Array.isArray(resolved[key]));
  let sets: Record<string, unknown>[] = [resolved];
  for (const key of fanned) {
    const values = [...new Map((resolved[key] as unknown[]).map((v) => [JSON.stringify(v), v])).values()];
    sets = sets.flatMap((set) => values.map((v) => ({ ...set, [key]: v })));
    if (sets.length > MAX_FAN_OUT) {
      throw new InvalidInputError(
        `the step would run ${sets.length} times (once per value of ${fanned.join(', ')}), over the limit of ${MAX_FAN_OUT}`,
        'Narrow the step that provides the values (a filter, a limit), or pass the list to a param that takes a list.',
        { params: fanned, calls: sets.length, limit: MAX_FAN_OUT },
      );
    }
  }
  return sets;
}

/** The data of a fanned-out step: the rows of every call in order (a call returning one object adds that object). */
export function combineFannedData(datas: readonly unknown[]): unknown[] {
  return datas.flatMap((d) => (Array.isArray(d) ? d : d === null || d === undefined ? [] : [d]));
}
