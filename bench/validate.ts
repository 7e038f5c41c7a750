/**
 * Parse + validate a realistic 50-step plan (10 tasks × 5 steps, templates and cross-task dependencies) against a
 * 12-tool catalog. Prints: validate_50_steps median_ms=… p95_ms=… iterations=…  (target: < 2 ms per plan).
 * Run: npx tsx bench/validate.ts
 */
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { createBudget } from '../src/domain/budget';
import { parsePlanJson, type PlanInput } from '../src/domain/plan';
import { toolSpecFromZod } from '../src/domain/tool-spec';
import { validatePlan, type ValidationContext } from '../src/domain/validation';

const dateRange = { date_from: z.iso.date().optional(), date_to: z.iso.date().optional() };
const tool = (name: string, params: z.ZodObject) =>
  toolSpecFromZod({
    name,
    description: `${name} tool`,
    params,
    cost_per_call_usd: 0.001,
    tokens_per_call: 300,
    task_queue: 'tools',
    idempotent: true,
  });

const catalog = [
  tool(
    'shipments',
    z.object({
      ...dateRange,
      has_contaminants: z.boolean().optional(),
      status: z.enum(['pending', 'delivered', 'rejected']).optional(),
      facility_id: z.string().optional(),
      limit: z.number().int().min(1).max(500).default(100),
    }),
  ),
  tool(
    'facilities',
    z.object({
      location: z.string().optional(),
      type: z.enum(['sorting', 'landfill', 'incinerator']).optional(),
      ids: z.array(z.string()).optional(),
    }),
  ),
  tool(
    'contaminants-detected',
    z.object({ shipment_ids: z.array(z.string()).optional(), facility_id: z.string().optional(), ...dateRange }),
  ),
  tool('inspections', z.object({ facility_id: z.string(), ...dateRange, result: z.enum(['pass', 'fail']).optional() })),
  tool('carriers', z.object({ ids: z.array(z.string()) })),
  tool('waste-types', z.object({ codes: z.array(z.string()).optional() })),
  tool('summarize', z.object({ text: z.string(), max_words: z.number().int().max(2000).default(200) })),
  tool('write-report', z.object({ path: z.string(), content: z.string() })),
  tool('notify', z.object({ channel: z.string(), message: z.string() })),
  tool('weather', z.object({ location: z.string(), date: z.iso.date() })),
  tool('permits', z.object({ facility_id: z.string(), active: z.boolean().default(true) })),
  tool('routes', z.object({ carrier_id: z.string(), ...dateRange })),
];

/** Task k: facilities → shipments(facility) → contaminants(shipments) → inspections(facility) → report, plus a link to the previous task's report. */
function buildPlan(): PlanInput {
  const tasks = Array.from({ length: 10 }, (_, k) => {
    const b = k * 5; // flattened index of the task's first step
    const prevReport = k === 0 ? [] : [b - 1];
    return {
      id: String(k + 1),
      title: `Region ${k + 1}`,
      steps: [
        {
          id: `${k + 1}.1`,
          title: 'Find facilities',
          tool: 'facilities',
          params: { location: `City ${k}`, type: 'sorting' },
          parallel: true,
          depends_on: prevReport,
        },
        {
          id: `${k + 1}.2`,
          title: 'Shipments',
          tool: 'shipments',
          params: {
            facility_id: `\${step[${b}].data[0].id}`,
            date_from: '2026-11-16',
            date_to: '2026-11-22',
            has_contaminants: true,
          },
          depends_on: [b],
          parallel: true,
        },
        {
          id: `${k + 1}.3`,
          title: 'Contaminants',
          tool: 'contaminants-detected',
          params: { shipment_ids: `\${step[${b + 1}].data.*.id}` },
          depends_on: [b + 1],
          parallel: true,
        },
        {
          id: `${k + 1}.4`,
          title: 'Inspections',
          tool: 'inspections',
          params: { facility_id: `\${step[${b}].data[0].id}`, result: 'fail' },
          depends_on: [b],
          parallel: true,
        },
        {
          id: `${k + 1}.5`,
          title: 'Report',
          tool: 'write-report',
          params: {
            path: `reports/region-${k + 1}.md`,
            content: `Contaminants \${step[${b + 2}].data} inspections \${step[${b + 3}].data}`,
          },
          depends_on: [b + 2, b + 3],
          verification: ['file exists'],
        },
      ],
    };
  });
  return {
    id: '019ab000-0000-7000-8000-000000000000',
    version: 1,
    goal: 'Contamination report for every region',
    status: 'FEASIBLE',
    tasks,
    complexity: 13,
    estimate: { cost_usd: 0.05, tokens: 15_000, calls: 50, duration_ms: 60_000 },
    metadata: { planner: 'llm', model: 'bench', temperature: 0.1, created_at: '2026-11-23T10:00:00Z' },
  };
}

const text = JSON.stringify(buildPlan());
const context: ValidationContext = {
  catalog,
  constraints: { max_steps: 60, workspace_root: '/work/ws' },
  budget: createBudget({ cost_usd: 1, tokens: 100_000, calls: 100 }),
};

function once(): void {
  const issues = validatePlan(parsePlanJson(text), context);
  if (issues.length > 0) throw new Error(`bench plan is invalid:\n${issues.map((i) => i.message).join('\n')}`);
}

const WARMUP = 500;
const BATCHES = 100;
const PER_BATCH = 20;
for (let i = 0; i < WARMUP; i++) once();
const perPlan: number[] = [];
for (let b = 0; b < BATCHES; b++) {
  const start = performance.now();
  for (let i = 0; i < PER_BATCH; i++) once();
  perPlan.push((performance.now() - start) / PER_BATCH);
}
perPlan.sort((x, y) => x - y);
const at = (q: number) => perPlan[Math.min(perPlan.length - 1, Math.floor(q * perPlan.length))]!.toFixed(3);
console.log(`validate_50_steps median_ms=${at(0.5)} p95_ms=${at(0.95)} iterations=${BATCHES * PER_BATCH}`);
