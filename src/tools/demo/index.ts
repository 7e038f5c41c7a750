/**
 * The demo side-effect pack (catalog `demo`, its own task queue): `record-note` appends `{key, text}` to a JSONL
 * file. It is NOT idempotent, so executeStep runs it once per idempotency key through the ledger, and the effect
 * itself is keyed too (the line is appended only if its key is not in the file yet), so a worker killed between the
 * append and the ledger write does not append twice on retry. Tests and chaos drills use `delay_ms` (before the
 * effect) and `delay_after_ms` (after it) to SIGKILL a worker mid-step.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { z } from 'zod';
import type { ToolContext, ToolImplementation, ToolPack } from '../tool';
import { DEMO_CATALOG, DEMO_CATALOG_NAME, RecordNoteParams, RecordNoteResult } from './catalog';

export { DEMO_CATALOG, DEMO_CATALOG_NAME, DEMO_TOOLS_QUEUE, RecordNoteParams, RecordNoteResult } from './catalog';

export const NOTES_FILE = 'notes.jsonl';

export interface NoteLine {
  key: string;
  text: string;
}

/** Sleeps `ms` in short slices, heartbeating, and rejects with the abort reason when the step is cancelled. */
export async function sleepWithHeartbeats(ms: number, ctx: Pick<ToolContext, 'heartbeat' | 'signal'>, slice = 200): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    ctx.signal.throwIfAborted();
    ctx.heartbeat();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(slice, until - Date.now()));
      function done() {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', done);
        resolve();
      }
      ctx.signal.addEventListener('abort', done, { once: true });
    });
  }
  ctx.signal.throwIfAborted();
}

/** The notes recorded so far, in order. */
export async function readNotes(dir: string): Promise<NoteLine[]> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, NOTES_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as NoteLine);
}

export function createRecordNoteTool(dir: string): ToolImplementation<z.output<typeof RecordNoteParams>> {
  return {
    spec: DEMO_CATALOG[0]!,
    paramsSchema: RecordNoteParams,
    resultSchema: RecordNoteResult,
    async run(p, ctx) {
      if (p.delay_ms) await sleepWithHeartbeats(p.delay_ms, ctx);
      await fs.mkdir(dir, { recursive: true });
      const notes = await readNotes(dir);
      let line = notes.findIndex((n) => n.key === ctx.idempotencyKey) + 1;
      if (line === 0) {
        const entry: NoteLine = { key: ctx.idempotencyKey, text: p.text };
        // One small write with O_APPEND: the line lands whole or not at all.
        await fs.appendFile(path.join(dir, NOTES_FILE), `${JSON.stringify(entry)}\n`, 'utf8');
        line = notes.length + 1;
      }
      if (p.delay_after_ms) await sleepWithHeartbeats(p.delay_after_ms, ctx);
      return { data: { key: ctx.idempotencyKey, text: p.text, line } };
    },
  };
}

/** The demo pack; notes go to `<dir>/notes.jsonl`. */
export function createDemoPack(options: { dir: string }): ToolPack {
  return { catalog: DEMO_CATALOG_NAME, tools: [createRecordNoteTool(options.dir)], close: async () => undefined };
}
