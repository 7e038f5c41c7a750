/**
 * `${step[N]<path>}` templates in step params: N is the 0-based index of a step in the flattened plan, and the path
 * walks that step's result: `.key` (object field), `[i]` (array item) and `.*` (map the rest of the path over
 * every item of an array). Examples: `${step[0].data}`, `${step[0].data[0].id}`, `${step[0].data.*.id}`.
 *
 * A param whose whole string is one template resolves to the raw value (array, object, number...); a template inside
 * a longer string is interpolated as text (strings as-is, everything else as JSON).
 */
import { TemplateResolutionError } from './errors';
import { forEachString, formatPath, isRecord, type PathSegment } from './walk';

export type TemplateSegment = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'map' };

export interface TemplateRef {
  /** 0-based index of the referenced step. */
  step: number;
  path: TemplateSegment[];
  /** The template text, e.g. `${step[0].data.*.id}`. */
  raw: string;
  /** Where it sits in the params, e.g. `filters.ids[0]`. */
  location: string;
}

const PATH = String.raw`(?:\.[A-Za-z_][\w-]*|\.\*|\[\d+\])*`;
const TEMPLATE_SOURCE = String.raw`\$\{step\[(\d+)\](${PATH})\}`;
const TEMPLATE = new RegExp(TEMPLATE_SOURCE, 'g');
const ANY_TEMPLATE = new RegExp(TEMPLATE_SOURCE);
const WHOLE_TEMPLATE = new RegExp(`^${TEMPLATE_SOURCE}$`);
const SEGMENT = /\.([A-Za-z_][\w-]*)|\.(\*)|\[(\d+)\]/g;

export function isWholeTemplate(text: string): boolean {
  return WHOLE_TEMPLATE.test(text);
}

export function containsTemplate(text: string): boolean {
  return text.includes('${step[') && ANY_TEMPLATE.test(text);
}

function parsePath(path: string): TemplateSegment[] {
  return Array.from(path.matchAll(SEGMENT), (m): TemplateSegment => {
    if (m[1] !== undefined) return { kind: 'key', key: m[1] };
    if (m[2] !== undefined) return { kind: 'map' };
    return { kind: 'index', index: Number(m[3]) };
  });
}

export interface TemplateScan {
  refs: TemplateRef[];
  /** Strings that mention `${step` but are not valid templates (e.g. `${step[0].data[*].id}`). */
  malformed: { location: string; text: string }[];
}

/** Every template reference in `params`, plus the strings that look like broken templates. */
export function scanTemplates(params: unknown): TemplateScan {
  const scan: TemplateScan = { refs: [], malformed: [] };
  forEachString(params, (text, path) => {
    if (!text.includes('${step')) return;
    const location = formatPath(path);
    for (const m of text.matchAll(TEMPLATE)) {
      scan.refs.push({ step: Number(m[1]), path: parsePath(m[2] ?? ''), raw: m[0], location });
    }
    if (text.replace(TEMPLATE, '').includes('${step')) scan.malformed.push({ location, text });
  });
  return scan;
}

/** Sorted, de-duplicated indices of the steps whose results `params` need (those of scanTemplates' refs). */
export function referencedSteps(params: unknown): number[] {
  // Only the step numbers, not each template's parsed path and location: every step's execution and the critics
  // ask this, and scanning in full was most of what they allocated for it.
  const steps = new Set<number>();
  forEachString(params, (text) => {
    if (!text.includes('${step')) return;
    for (const m of text.matchAll(TEMPLATE)) steps.add(Number(m[1]));
  });
  return [...steps].sort((a, b) => a - b);
}

/** Every `${step[N]` of `params` renumbered by `indexOf` (params are JSON, so the round trip keeps them whole). */
export function renumberedTemplates(
  params: Record<string, unknown>,
  indexOf: (step: number) => number,
): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(params).replace(/\$\{step\[(\d+)\]/g, (_m, n: string) => `\${step[${indexOf(Number(n))}]`),
  ) as Record<string, unknown>;
}

/**
 * Substitutes every template in `params` with data from `results` (step index → that step's result).
 * Throws TemplateResolutionError when a referenced step has no result or a path resolves to nothing.
 */
export function resolveTemplates(
  params: Record<string, unknown>,
  results: Readonly<Record<number, unknown>>,
): Record<string, unknown> {
  const path: PathSegment[] = [];
  const resolveValue = (v: unknown): unknown => {
    if (typeof v === 'string') return resolveString(v, results, path);
    if (Array.isArray(v)) {
      return v.map((item, i) => {
        path.push(i);
        const out = resolveValue(item);
        path.pop();
        return out;
      });
    }
    if (isRecord(v)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        path.push(key);
        out[key] = resolveValue(v[key]);
        path.pop();
      }
      return out;
    }
    return v;
  };
  return resolveValue(params) as Record<string, unknown>;
}

function resolveString(text: string, results: Readonly<Record<number, unknown>>, at: readonly PathSegment[]): unknown {
  if (!text.includes('${step[')) return text;
  const whole = WHOLE_TEMPLATE.exec(text);
  if (whole) return lookup(Number(whole[1]), whole[2] ?? '', text, results, at);
  return text.replace(TEMPLATE, (raw, step: string, path: string) => {
    const value = lookup(Number(step), path, raw, results, at);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function lookup(
  step: number,
  pathText: string,
  raw: string,
  results: Readonly<Record<number, unknown>>,
  at: readonly PathSegment[],
): unknown {
  const details = { step_index: step, template: raw, param: formatPath(at) };
  if (!Object.hasOwn(results, step)) {
    throw new TemplateResolutionError(
      'missing_result',
      `${raw} in param "${details.param}": step ${step} has no result`,
      details,
    );
  }
  const segments = parsePath(pathText);
  const walk = (value: unknown, from: number, trail: PathSegment[]): unknown => {
    let current = value;
    for (let i = from; i < segments.length; i++) {
      const seg = segments[i]!;
      if (seg.kind === 'key') {
        if (!isRecord(current) || !Object.hasOwn(current, seg.key)) return fail(trail, `no field "${seg.key}"`);
        current = current[seg.key];
        trail = [...trail, seg.key];
      } else if (seg.kind === 'index') {
        if (!Array.isArray(current) || seg.index >= current.length) return fail(trail, `no item [${seg.index}]`);
        current = current[seg.index];
        trail = [...trail, seg.index];
      } else {
        if (!Array.isArray(current)) return fail(trail, 'not an array, cannot map with .*');
        const items: unknown[] = current;
        const base = trail;
        return items.map((item, j) => walk(item, i + 1, [...base, j]));
      }
    }
    return current === undefined ? fail(trail, 'value is undefined') : current;
  };
  const fail = (trail: readonly PathSegment[], why: string): never => {
    const where = formatPath(trail) || '(result)';
    throw new TemplateResolutionError(
      'unresolved_path',
      `${raw} in param "${details.param}": step ${step} result at ${where}: ${why}`,
      {
        ...details,
        at: where,
      },
    );
  };
  return walk(results[step], 0, []);
}
