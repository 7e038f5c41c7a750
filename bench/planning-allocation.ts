/**
 * What one deterministic plan allocates on the worker's main thread: analyzeRequirements → generatePlan →
 * critiquePlan → gatekeeper, as a run calls them (in an activity context), for the bench goal and the demo goal.
 *   npm run bench:allocation [-- --out <file>]
 * Each goal is measured in a fresh process, twice: cold (its first 5 plans, code not yet optimized: what a worker
 * does in its first seconds, when V8 sets the old generation's growth) and warm (100 plans after 100). Allocation is
 * read with V8's sampling heap profiler (one sample per 128 bytes on average, objects collected by either
 * collector kept), so figures are estimates good to a few percent; the sites are each sample's nearest frame in src/.
 * Prints KB per plan and the top sites; writes bench/planning-allocation-results.json.
 */
import { execFileSync } from 'node:child_process';
import inspector from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPlanningActivities } from '../src/activities/planning';
import { parsePlanningRequest } from '../src/domain/request';
import { RuleBasedAnalyzer } from '../src/planners/analyze/rules-analyzer';
import { RULE_CRITICS } from '../src/planners/critique/rule-critics';
import { RankingPlanner } from '../src/planners/generate/ranking-planner';
import { projectRoot } from '../src/project-root';
import { MemoryContentStore } from '../src/store/content-store';
import { MemoryIdempotencyLedger } from '../src/store/idempotency';
import { builtInCatalogs } from '../src/tools/registry';
import { catalogsOf } from '../src/worker';
import { BENCH_CATALOG_NAME, BENCH_GOAL, createBenchPack } from './bench-pack';
import { round } from './figures';

const GOALS = {
  bench: { goal: BENCH_GOAL, tool_catalog: BENCH_CATALOG_NAME },
  demo: { goal: 'Get contaminated shipments from last week and their contaminant details', tool_catalog: 'waste' },
} as const;
type GoalName = keyof typeof GOALS;
const COLD_PLANS = 5;
const WARM_PLANS = 100;
const SAMPLING_INTERVAL_BYTES = 128;
const NOW = '2026-11-23T10:00:00Z';

interface SamplingNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: SamplingNode[];
}

/** Total sampled bytes, and bytes by nearest frame in src/ ("function file"). */
function allocationSites(head: SamplingNode): { total: number; sites: Map<string, number> } {
  const sites = new Map<string, number>();
  let total = 0;
  const walk = (node: SamplingNode, site: string) => {
    const { functionName, url } = node.callFrame;
    const at = url.indexOf('/src/');
    const here = at >= 0 ? `${functionName || '(anonymous)'} ${url.slice(at + 1)}` : site;
    if (node.selfSize > 0) {
      total += node.selfSize;
      sites.set(here, (sites.get(here) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(head, '(outside src)');
  return { total, sites };
}

/** Runs in the child: `plans` plans of `name` after `warmup`, sampled. */
async function measure(name: GoalName, warmup: number, plans: number) {
  const activities = createPlanningActivities({
    catalogs: name === 'bench' ? catalogsOf([createBenchPack()]) : builtInCatalogs(),
    rules: { analyzer: new RuleBasedAnalyzer(), planner: new RankingPlanner() },
    critics: RULE_CRITICS,
    store: new MemoryContentStore(),
    ledger: new MemoryIdempotencyLedger(),
    workspaceRoots: [process.cwd()],
  });
  const env = new MockActivityEnvironment();
  const run = <A, R>(fn: (input: A) => Promise<R>, input: A) => env.run(fn, input) as Promise<R>;
  const plan = async () => {
    const request = parsePlanningRequest({
      ...GOALS[name],
      trace_id: 'bench',
      budget: { cost_usd: 1, tokens: 100_000, calls: 50, policy: 'block' },
      now: NOW,
    });
    const { requirements } = await run(activities.analyzeRequirements, { request });
    const stamp = { id: '019ab000-0000-7000-8000-000000000001', version: 1, created_at: NOW };
    const { plan: generated } = await run(activities.generatePlan, { request, requirements, stamp, with_routes: true });
    const { critiques } = await run(activities.critiquePlan, { plan: generated, request });
    await run(activities.gatekeeper, { critiques, max_refinements: 2, refinements_done: 0 });
  };
  for (let i = 0; i < warmup; i++) await plan();
  const session = new inspector.Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_INTERVAL_BYTES,
    // Both: short-lived objects are the point (what the young generation sees and may promote).
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as inspector.HeapProfiler.StartSamplingParameterType);
  for (let i = 0; i < plans; i++) await plan();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const { total, sites } = allocationSites(profile.head as SamplingNode);
  const kb = (bytes: number) => round(bytes / plans / 1024, 1);
  return {
    kb_per_plan: kb(total),
    top_sites_kb_per_plan: Object.fromEntries(
      [...sites]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([site, bytes]) => [site, kb(bytes)]),
    ),
  };
}

async function main() {
  const child = process.env.PLANNING_ALLOCATION_CHILD;
  if (child) {
    const [name, warmup, plans] = child.split(':');
    process.stdout.write(JSON.stringify(await measure(name as GoalName, Number(warmup), Number(plans))));
    return;
  }
  const outIndex = process.argv.indexOf('--out');
  const out =
    outIndex > 0 ? process.argv[outIndex + 1]! : path.join(projectRoot(), 'bench', 'planning-allocation-results.json');
  // A fresh process per measurement: "cold" must mean code this process has never run.
  const inChild = (name: GoalName, warmup: number, plans: number) =>
    JSON.parse(
      execFileSync(process.execPath, [...process.execArgv, __filename], {
        env: { ...process.env, PLANNING_ALLOCATION_CHILD: `${name}:${warmup}:${plans}` },
        encoding: 'utf8',
      }),
    ) as Awaited<ReturnType<typeof measure>>;
  const goals: Record<string, unknown> = {};
  for (const name of Object.keys(GOALS) as GoalName[]) {
    const cold = inChild(name, 0, COLD_PLANS);
    const warm = inChild(name, WARM_PLANS, WARM_PLANS);
    console.log(`${name}: ${cold.kb_per_plan} KB per plan cold (first ${COLD_PLANS}), ${warm.kb_per_plan} KB warm`);
    for (const [site, kb] of Object.entries(warm.top_sites_kb_per_plan).slice(0, 6))
      console.log(`  warm ${String(kb).padStart(6)} KB  ${site}`);
    goals[name] = { goal: GOALS[name].goal, cold, warm };
  }
  const result = {
    measured_at: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    sampling_interval_bytes: SAMPLING_INTERVAL_BYTES,
    cold_plans: COLD_PLANS,
    warm_plans: WARM_PLANS,
    goals,
  };
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
