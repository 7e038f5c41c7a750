/**
 * The demo side-effect catalog (what the planner sees): `record-note`, served on its own task queue. Pure (no Node
 * APIs), so workflow code may import it; the implementation is in ./index.ts.
 */
import { z } from 'zod';
import { toolSpecFromZod, type ToolSpec } from '../../domain/tool-spec';

export const DEMO_CATALOG_NAME = 'demo';
export const DEMO_TOOLS_QUEUE = 'durable-planner-tools-demo';

export const RecordNoteParams = z.object({
  text: z.string().min(1).max(2000).describe('The note to record'),
  delay_ms: z.number().int().min(0).max(600_000).optional().describe('Wait this long (heartbeating) before recording'),
  delay_after_ms: z.number().int().min(0).max(600_000).optional().describe('Wait this long (heartbeating) after recording'),
});
export const RecordNoteResult = z.object({ key: z.string(), text: z.string(), line: z.number().int().min(1) });

export const DEMO_CATALOG: ToolSpec[] = [
  toolSpecFromZod({
    name: 'record-note',
    description: 'Record a note in the demo notebook (a side effect: each call appends one line).',
    params: RecordNoteParams,
    result: RecordNoteResult,
    task_queue: DEMO_TOOLS_QUEUE,
    idempotent: false,
    cost_per_call_usd: 0,
    tokens_per_call: 0,
    tags: ['note', 'record', 'write', 'log', 'notebook'],
  }),
];
