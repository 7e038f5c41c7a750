/**
 * The schemas a workflow run reaches are built once per worker thread (src/domain/shared-schema.ts), not at the start
 * of every run: each module-level schema of the workflow's modules goes through `sharedSchema`, under its own key.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { sharedSchema } from '../../../src/domain/shared-schema';
import { PLANNER_BUNDLER_OPTIONS, plannerWorkflows } from '../../../src/worker';
import { slimWorkflowBundle, type WebpackConfig } from '../../../src/workflow-bundle';

const SRC = path.join(__dirname, '..', '..', '..', 'src');

/** The modules of src the workflow bundle evaluates: src/workflows/index.ts and what it imports as values. */
function workflowModules(): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(/^(?:import|export) (?!type )[^;]*? from '(\.[^']+)';/gms)) {
      const target = path.resolve(path.dirname(file), specifier!);
      visit(existsSync(`${target}.ts`) ? `${target}.ts` : path.join(target, 'index.ts'));
    }
  };
  visit(path.join(SRC, 'workflows', 'index.ts'));
  return [...seen];
}

/** A module-level constant built with zod, or from another schema, outside `sharedSchema`. */
const UNSHARED = /^(?:export )?const \w+(?: *: *[^=]+)? *= *(?!sharedSchema\()(?:z\b|\w+Schema\.|\w+Field\.)/;

test('every module-level schema the workflow reaches is built once per worker thread', () => {
  const modules = workflowModules();
  expect(modules.map((m) => path.relative(SRC, m))).toEqual(
    expect.arrayContaining(['api/input.ts', 'api/messages.ts', 'domain/plan.ts', 'workflows/resume.ts']),
  );
  const offenders = modules.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (UNSHARED.test(line) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(offenders).toEqual([]);
});

test('the check catches what it is meant to', () => {
  for (const line of [
    'export const PlanSchema = z',
    'const ms = z.number();',
    'export const B = UsageSchema.extend({})',
    'export const A: z.ZodType<X> = z.object({',
  ])
    expect(UNSHARED.test(line)).toBe(true);
  for (const line of [
    "export const PlanSchema = sharedSchema('domain/plan#PlanSchema', () =>",
    'export const approveUpdate = defineUpdate<string>(x);',
    '  const options = Schema.safeParse(x);',
  ])
    expect(UNSHARED.test(line)).toBe(false);
});

test('no two schemas share a key', () => {
  const keys = workflowModules().flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/sharedSchema\('([^']+)'/g)].map((m) => m[1]),
  );
  expect(keys.length).toBeGreaterThan(30);
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
});

test('a shared schema is built the first time its key is asked for, then handed out as built', () => {
  let builds = 0;
  const build = () => (builds++, z.object({ n: z.number() }));
  const first = sharedSchema('test#shared-once', build);
  expect(sharedSchema('test#shared-once', build)).toBe(first);
  expect(builds).toBe(1);
  expect(first.parse({ n: 1 })).toEqual({ n: 1 });
});

test("a worker's own bundler options are kept, with the planner's preloaded module and webpack hook added", () => {
  const own = { ignoreModules: ['fs'], preloadModules: ['./own-preload'] };
  expect(plannerWorkflows(undefined, own).bundlerOptions).toEqual({
    ignoreModules: ['fs'],
    preloadModules: ['./own-preload', ...PLANNER_BUNDLER_OPTIONS.preloadModules],
    webpackConfigHook: slimWorkflowBundle,
  });
  expect(plannerWorkflows().bundlerOptions).toEqual(PLANNER_BUNDLER_OPTIONS);
  expect(plannerWorkflows({ code: 'prebuilt' })).toEqual({ workflowBundle: { code: 'prebuilt' } });
});

test("a worker's own webpack hook runs first, then the planner's", () => {
  const ownHook = (config: WebpackConfig): WebpackConfig => ({ ...config, devtool: 'source-map', target: 'node' });
  const hook = plannerWorkflows(undefined, { webpackConfigHook: ownHook }).bundlerOptions!.webpackConfigHook!;
  const config = hook({ mode: 'development', plugins: [] });
  expect(config).toMatchObject({ mode: 'development', target: 'node', devtool: 'inline-nosources-source-map' });
  expect(config.plugins).toHaveLength(1);
});
