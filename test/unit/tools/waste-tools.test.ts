/**
 * The waste pack against a real (embedded, PGlite) PostgreSQL: the four seed scenarios' tool calls, run through
 * executeStep exactly as the workflow chains them. One database per file; its start-up time is printed.
 */
import * as fc from 'fast-check';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z } from 'zod';
import { createToolActivities } from '../../../src/activities/tools';
import { resolveTemporalReferences } from '../../../src/domain/dates';
import type { StepExecutionInput, StepResult } from '../../../src/domain/step-execution';
import { MemoryContentStore } from '../../../src/store/content-store';
import { MemoryIdempotencyLedger } from '../../../src/store/idempotency';
import {
  ContaminantDetectionRow,
  FacilityRow,
  InspectionRow,
  ShipmentRow,
  WASTE_CATALOG,
} from '../../../src/tools/waste/catalog';
import { generateWasteData } from '../../../src/tools/waste/data';
import { createWastePack, type WastePack } from '../../../src/tools/waste';
import { loadConfig } from '../../../src/config';

const TODAY = '2026-11-25'; // a Wednesday: "this week" is Monday 23rd to today
const NOW = `${TODAY}T10:00:00Z`;
const range = (phrase: string) => {
  const [ref] = resolveTemporalReferences(phrase, NOW);
  return { date_from: ref!.start, date_to: ref!.end };
};

let pack: WastePack;
let store: MemoryContentStore;
let executeStep: ReturnType<typeof createToolActivities>['executeStep'];

beforeAll(async () => {
  const started = Date.now();
  pack = await createWastePack({ today: TODAY, cacheDir: loadConfig().cacheDir });
  console.log(`pglite waste database ready in ${Date.now() - started} ms`, pack.timings);
  store = new MemoryContentStore();
  ({ executeStep } = createToolActivities({
    tools: pack.tools,
    store,
    ledger: new MemoryIdempotencyLedger(),
    workspaceRoots: [],
  }));
});
afterAll(async () => {
  await pack?.close();
});

let stepCounter = 0;
async function step(
  tool: string,
  params: Record<string, unknown>,
  inputs: Record<string, StepResult> = {},
): Promise<unknown[]> {
  const n = stepCounter++;
  const input: StepExecutionInput = {
    workflow_id: 'wf-waste',
    plan_id: 'plan-waste',
    plan_version: 1,
    step_index: n,
    step_id: `s${n}`,
    tool,
    tool_catalog: 'waste',
    params,
    inputs: Object.fromEntries(Object.entries(inputs).map(([k, r]) => [k, { ref: r.ref }])), // by ref, as for big results
    idempotency_scope: `wf-waste/s${n}`,
  };
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const result = (await env.run(executeStep, input)) as StepResult;
  const rows = (await store.get(result.ref)) as unknown[];
  expect(result.items).toBe(rows.length);
  last = result;
  return rows;
}
let last: StepResult;

/** Every row has exactly the fields of `schema`, with the right types. */
function expectRows(rows: unknown[], schema: z.ZodObject): void {
  const keys = Object.keys(schema.shape).sort();
  for (const row of rows) {
    expect(Object.keys(row as object).sort()).toEqual(keys);
    expect(schema.strict().safeParse(row).success).toBe(true);
  }
}

describe('waste tools on PGlite', () => {
  test('scenario 1: shipments from last week are all inside the (inclusive) date range', async () => {
    const week = range('last week');
    const rows = (await step('shipments', week)) as z.output<typeof ShipmentRow>[];
    expect(rows).toHaveLength(35); // 7 days × 5 shipments a day
    expectRows(rows, ShipmentRow);
    expect(rows.every((r) => r.shipped_on >= week.date_from && r.shipped_on <= week.date_to)).toBe(true);
    const days = [...new Set(rows.map((r) => r.shipped_on))].sort();
    expect(days).toHaveLength(7);
    expect([days[0], days[6]]).toEqual([week.date_from, week.date_to]); // both ends of the range are included
    expect(rows.every((r) => /^SHP-\d{4}$/.test(r.id) && /^FAC-\d{2}$/.test(r.facility_id))).toBe(true);
  });

  test('scenario 2: contaminated shipments last week → their contaminant details via ${step[0].data.*.id}', async () => {
    const week = range('last week');
    const shipments = (await step('shipments', { ...week, has_contaminants: true })) as z.output<typeof ShipmentRow>[];
    const first = last;
    expect(shipments.length).toBeGreaterThan(0);
    expect(shipments.every((r) => r.has_contaminants === true)).toBe(true);
    expect(shipments.every((r) => r.shipped_on >= week.date_from && r.shipped_on <= week.date_to)).toBe(true);

    const detections = (await step(
      'contaminants-detected',
      { shipment_ids: '${step[0].data.*.id}' },
      { 0: first },
    )) as z.output<typeof ContaminantDetectionRow>[];
    expectRows(detections, ContaminantDetectionRow);
    const ids = new Set(shipments.map((s) => s.id));
    expect(detections.length).toBeGreaterThanOrEqual(shipments.length); // every contaminated shipment has ≥ 1 detection
    expect(detections.every((d) => ids.has(d.shipment_id))).toBe(true);
    expect(new Set(detections.map((d) => d.shipment_id))).toEqual(ids);
    expect(
      detections.every((d) => /^CON-\d{4}$/.test(d.id) && ['low', 'medium', 'high', 'critical'].includes(d.risk_level)),
    ).toBe(true);
  });

  test("scenario 3: today's contaminants in Hannover (facilities location is case-insensitive, then ${step[0].data[0].id})", async () => {
    const facilities = (await step('facilities', { location: 'hannover' })) as z.output<typeof FacilityRow>[];
    const first = last;
    expectRows(facilities, FacilityRow);
    expect(facilities.length).toBeGreaterThan(0);
    expect(facilities.every((f) => f.location === 'Hannover')).toBe(true);
    expect(facilities[0]!.id).toBe('FAC-01');

    const today = range('today');
    const detections = (await step(
      'contaminants-detected',
      { facility_id: '${step[0].data[0].id}', ...today },
      { 0: first },
    )) as z.output<typeof ContaminantDetectionRow>[];
    expect(detections.length).toBeGreaterThan(0);
    expect(detections.every((d) => d.facility_id === 'FAC-01' && d.detected_on === TODAY)).toBe(true);
  });

  test('scenario 4: inspections accepted this week → high-risk contaminants in those shipments (${step[0].data.*.shipment_id})', async () => {
    const week = range('this week');
    const inspections = (await step('inspections', { status: 'accepted', ...week })) as z.output<
      typeof InspectionRow
    >[];
    const first = last;
    expectRows(inspections, InspectionRow);
    expect(inspections.length).toBeGreaterThan(0);
    expect(
      inspections.every(
        (i) => i.status === 'accepted' && i.inspected_on >= week.date_from && i.inspected_on <= week.date_to,
      ),
    ).toBe(true);

    const detections = (await step(
      'contaminants-detected',
      { shipment_ids: '${step[0].data.*.shipment_id}', risk_level: 'high' },
      { 0: first },
    )) as z.output<typeof ContaminantDetectionRow>[];
    expect(detections.length).toBeGreaterThan(0);
    const ids = new Set(inspections.map((i) => i.shipment_id));
    expect(detections.every((d) => d.risk_level === 'high' && ids.has(d.shipment_id))).toBe(true);
  });

  test('filters combine: status, facility, carrier, type, capacity, contaminant name, limit (default 100)', async () => {
    expect(await step('shipments', {})).toHaveLength(100);
    expect(await step('shipments', { limit: 7 })).toHaveLength(7);
    const rejected = (await step('shipments', { status: 'rejected', facility_id: 'FAC-03' })) as z.output<
      typeof ShipmentRow
    >[];
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected.every((r) => r.status === 'rejected' && r.facility_id === 'FAC-03')).toBe(true);
    const carrier = (await step('shipments', { carrier: 'ecotrans ag' })) as z.output<typeof ShipmentRow>[];
    expect(carrier.length).toBeGreaterThan(0);
    expect(carrier.every((r) => r.carrier === 'EcoTrans AG')).toBe(true);
    const big = (await step('facilities', { min_capacity_tons: 700, type: 'incineration' })) as z.output<
      typeof FacilityRow
    >[];
    expect(big.map((f) => f.id)).toEqual(['FAC-03', 'FAC-07']);
    const lead = (await step('contaminants-detected', { contaminant: 'LEAD' })) as z.output<
      typeof ContaminantDetectionRow
    >[];
    expect(lead.length).toBeGreaterThan(0);
    expect(lead.every((d) => d.contaminant === 'lead')).toBe(true);
    expect(await step('contaminants-detected', { shipment_ids: [] })).toEqual([]);
    expect(await step('facilities', { location: 'Atlantis' })).toEqual([]);
  });

  test('every table agrees with the generated data set (row counts through the tools)', async () => {
    const all = async (tool: string) => step(tool, { limit: 1000 });
    expect(await all('shipments')).toHaveLength(pack.data.shipments.length);
    expect(await all('facilities')).toHaveLength(pack.data.facilities.length);
    expect(await all('contaminants-detected')).toHaveLength(pack.data.detections.length);
    expect(await all('inspections')).toHaveLength(pack.data.inspections.length);
  });

  test('the catalog specs the planner sees are the ones the worker serves', () => {
    expect(pack.tools.map((t) => t.spec)).toEqual(WASTE_CATALOG);
  });
});

describe('generated data set', () => {
  test('is deterministic for a given day, ~300 shipments over 60 days, ~25% contaminated, most inspected', () => {
    const data = generateWasteData(TODAY);
    expect(generateWasteData(new Date(NOW))).toEqual(data);
    expect(data.facilities).toHaveLength(8);
    expect(new Set(data.facilities.map((f) => f.location))).toEqual(
      new Set(['Hannover', 'Bremen', 'Hamburg', 'Berlin', 'Köln', 'München', 'Leipzig']),
    );
    expect(data.shipments).toHaveLength(300);
    const contaminated = data.shipments.filter((s) => s.has_contaminants).length / data.shipments.length;
    expect(contaminated).toBeGreaterThan(0.2);
    expect(contaminated).toBeLessThan(0.4);
    expect(data.inspections.length / data.shipments.length).toBeGreaterThan(0.8);
    for (const name of ['lead', 'asbestos', 'PCB', 'mercury', 'cadmium', 'hydrocarbons'])
      expect(data.detections.some((d) => d.contaminant === name)).toBe(true);
  });

  test('for ANY day: today has detections at FAC-01 (Hannover), an accepted inspection today of a shipment with a high-risk detection, and every day a contaminated shipment', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true }),
        (date) => {
          const data = generateWasteData(date);
          const today = data.today;
          expect(data.detections.some((d) => d.facility_id === 'FAC-01' && d.detected_on === today)).toBe(true);
          const highRisk = new Set(data.detections.filter((d) => d.risk_level === 'high').map((d) => d.shipment_id));
          expect(
            data.inspections.some(
              (i) => i.status === 'accepted' && i.inspected_on === today && highRisk.has(i.shipment_id),
            ),
          ).toBe(true);
          const contaminatedDays = new Set(data.shipments.filter((s) => s.has_contaminants).map((s) => s.shipped_on));
          expect(contaminatedDays.size).toBe(60);
          expect(
            data.shipments.every((s) => s.shipped_on <= today) &&
              data.inspections.every((i) => i.inspected_on <= today),
          ).toBe(true);
          const shipped = new Map(data.shipments.map((s) => [s.id, s.shipped_on]));
          expect(data.inspections.every((i) => i.inspected_on >= shipped.get(i.shipment_id)!)).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
  });
});
