/**
 * The old-generation limits V8 set in a worker's main thread, read from its `--trace-gc-verbose` output (the bench's
 * `--gc-trace <dir>`). After each full collection V8's heap controller sets the next limit from the live size times a
 * factor between 1.1 and 4.0 (at least a minimum step above it, plus the young generation's room), the factor chosen
 * from how fast the collector marked (gc, bytes/ms) against how fast the old generation has been filling lately
 * (mutator, bytes/ms): the lower that speed ratio, the higher the factor, and the more the old generation may grow
 * before the next full collection. A large factor set in a worker's first seconds is what makes its peak RSS differ
 * from the next one's under the same load (bench/README.md, "Why the peak moves").
 */
import { round } from './figures';

export interface HeapLimit {
  /** Milliseconds since the process started. */
  at_ms: number;
  factor: number;
  speed_ratio: number;
  /** Marking speed of the full collection, MB/s. */
  gc_mb_s: number;
  /** How fast the old generation had been filling lately (V8's recent allocation throughput), MB/s. */
  old_gen_fill_mb_s: number;
  /** Live old generation after the collection and the limit set from it, MB. */
  live_mb: number;
  limit_mb: number;
}

const LINE =
  /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: \[HeapController\] (?:factor ([\d.]+) based on mu=[\d.]+, speed_ratio=(\d+) \(gc=(\d+), mutator=(\d+)\)|Limit: old size: (\d+) KB, new limit: (\d+) KB)/;
const ISOLATE = /^\[\d+:(0x[0-9a-f]+)\]/;

/**
 * The heap limits of the process's main thread (the isolate that traces first; workflow threads start later) in the
 * order V8 set them. Lines of other isolates and anything not from the heap controller are skipped.
 */
export function mainThreadHeapLimits(trace: string): HeapLimit[] {
  let main: string | undefined;
  const limits: HeapLimit[] = [];
  let pending: Omit<HeapLimit, 'live_mb' | 'limit_mb'> | undefined;
  for (const line of trace.split('\n')) {
    main ??= ISOLATE.exec(line)?.[1];
    const m = LINE.exec(line);
    if (!m || m[1] !== main) continue;
    if (m[3] !== undefined) {
      pending = {
        at_ms: Number(m[2]),
        factor: Number(m[3]),
        speed_ratio: Number(m[4]),
        gc_mb_s: round(Number(m[5]) / 1000, 1),
        old_gen_fill_mb_s: round(Number(m[6]) / 1000),
      };
    } else if (pending) {
      limits.push({ ...pending, live_mb: round(Number(m[7]) / 1024, 1), limit_mb: round(Number(m[8]) / 1024, 1) });
      pending = undefined;
    }
  }
  return limits;
}

/** One line for the bench's log: each limit's factor, when, and the speeds it came from. */
export function describeHeapLimits(limits: readonly HeapLimit[]): string {
  if (limits.length === 0) return 'no full collection traced';
  return limits
    .map(
      (l) =>
        `x${l.factor} at ${(l.at_ms / 1000).toFixed(1)} s (${l.live_mb} -> ${l.limit_mb} MB; ratio ${l.speed_ratio}: gc ${l.gc_mb_s} MB/s, filling ${l.old_gen_fill_mb_s} MB/s)`,
    )
    .join(', ');
}
