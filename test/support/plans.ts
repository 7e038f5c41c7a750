/**
 * A small tool catalog for validation tests (zod and JSON Schema specs, a non-idempotent tool on another queue), a
 * valid plan that uses it, a plan with a fan-out step, and the defaults of a step.
 */
import { z } from 'zod';
import { PlanSchema, type Plan, type PlanInput, type Step } from '../../src/domain/plan';
import { pathParam, toolSpecFromJsonSchema, toolSpecFromZod, type ToolSpec } from '../../src/domain/tool-spec';
import { NOW } from './planning';

export const PLAN_ID = '019ab000-0000-7000-8000-000000000000';

export const catalog: ToolSpec[] = [
  toolSpecFromZod({
    name: 'shipments',
    description: 'List shipments, filtered by date and contamination',
    params: z.object({
      date_from: z.iso.date().optional(),
      date_to: z.iso.date().optional(),
      has_contaminants: z.boolean().optional(),
      status: z.enum(['pending', 'delivered', 'rejected']).optional(),
      limit: z.number().int().min(1).max(500).default(100),
    }),
    cost_per_call_usd: 0.001,
    tokens_per_call: 400,
    task_queue: 'tools-waste',
    idempotent: true,
    tags: ['shipments', 'read'],
  }),
  toolSpecFromZod({
    name: 'facilities',
    description: 'Find facilities by location',
    params: z.object({ location: z.string(), type: z.string().optional() }),
    cost_per_call_usd: 0.001,
    tokens_per_call: 200,
    task_queue: 'tools-waste',
    idempotent: true,
  }),
  toolSpecFromJsonSchema({
    name: 'contaminants-detected',
    description: 'Contaminants detected in shipments or at a facility',
    parameters: {
      type: 'object',
      properties: {
        shipment_ids: { type: 'array', items: { type: 'string' } },
        facility_id: { type: 'string' },
      },
      additionalProperties: false,
    },
    cost_per_call_usd: 0.002,
    tokens_per_call: 600,
    task_queue: 'tools-waste',
    idempotent: true,
  }),
  toolSpecFromZod({
    name: 'write-report',
    description: 'Write a report file into the workspace',
    params: z.object({ path: pathParam('The report file, relative to the workspace'), content: z.string() }),
    task_queue: 'tools-files',
    idempotent: false,
  }),
];

/** shipments → contaminants(step 0) → report(step 1), as an LLM would write it (defaults omitted). */
export function validPlanInput(): PlanInput {
  return {
    id: PLAN_ID,
    version: 1,
    goal: "Report last week's contaminated shipments",
    status: 'FEASIBLE',
    tasks: [
      {
        id: '1',
        title: 'Collect data',
        steps: [
          {
            id: '1.1',
            title: 'Fetch contaminated shipments',
            tool: 'shipments',
            params: { date_from: '2026-11-16', date_to: '2026-11-22', has_contaminants: true },
            parallel: true,
          },
          {
            id: '1.2',
            title: 'Fetch contaminant details',
            tool: 'contaminants-detected',
            params: { shipment_ids: '${step[0].data.*.id}' },
            depends_on: [0],
          },
        ],
      },
      {
        id: '2',
        title: 'Report',
        depends_on: ['1'],
        steps: [
          {
            id: '2.1',
            title: 'Write the report',
            tool: 'write-report',
            params: { path: 'reports/contaminants.md', content: 'Contaminants: ${step[1].data}' },
            depends_on: [1],
          },
        ],
      },
    ],
    complexity: 3,
    estimate: { cost_usd: 0.003, tokens: 1000, calls: 3, duration_ms: 3000 },
    metadata: { planner: 'llm', model: 'gpt-test', temperature: 0.1, created_at: NOW },
  };
}

type StepInput = PlanInput['tasks'][number]['steps'][number];

/** What StepSchema gives a step that leaves them out (a fresh copy each call): a step is these and its own fields. */
export function stepDefaults(): Omit<Step, 'id' | 'title' | 'action'> {
  return {
    description: '',
    tool: null,
    params: {},
    depends_on: [],
    parallel: false,
    expected_output: '',
    verification: [],
  };
}

/**
 * Facilities in Hannover, then their shipments: a fan-out step, one call per facility found (its `facility_id` is
 * `${step[0].data.*.id}`); then the steps `then`, which may depend on either.
 */
export function fanOutPlan(...then: StepInput[]): Plan {
  return PlanSchema.parse({
    ...validPlanInput(),
    tasks: [
      {
        id: '1',
        title: 'Facilities and their shipments',
        steps: [
          { id: '1.1', title: 'Facilities', tool: 'facilities', params: { location: 'Hannover' } },
          {
            id: '1.2',
            title: 'Their shipments',
            tool: 'shipments',
            params: { facility_id: '${step[0].data.*.id}' },
            depends_on: [0],
          },
          ...then,
        ],
      },
    ],
  });
}
