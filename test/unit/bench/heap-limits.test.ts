import { describeHeapLimits, mainThreadHeapLimits } from '../../../bench/heap-limits';

// Lines as a worker prints them with --trace-gc-verbose: the main thread (0x3d575da0) traces first, a workflow thread
// (0x7efbf0000f00) later; the global memory controller and the heap tables are not limits.
const TRACE = [
  '[4183:0x3d575da0]      51 ms: Scavenge 4.4 (5.1) -> 3.9 (6.1) MB, 0.88 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure;',
  '[4183:0x3d575da0]      475 ms: [HeapController] factor 4.0 based on mu=0.970, speed_ratio=0 (gc=0, mutator=35015)',
  '[4183:0x3d575da0]      475 ms: [HeapController] Limit: old size: 12178 KB, new limit: 56766 KB (4.0)',
  '[4183:0x3d575da0]      475 ms: [GlobalMemoryController] Limit: old size: 12178 KB, new limit: 56766 KB (4.0)',
  '[4183:0x7efbf0000f00]    13377 ms: [HeapController] factor 1.1 based on mu=0.970, speed_ratio=881 (gc=1055018, mutator=1197)',
  '[4183:0x7efbf0000f00]    13377 ms: [HeapController] Limit: old size: 26000 KB, new limit: 50300 KB (1.1)',
  'ready',
  '[4183:0x3d575da0]    31789 ms: [HeapController] factor 3.3 based on mu=0.970, speed_ratio=46 (gc=96710, mutator=2102)',
  '[4183:0x3d575da0]    31789 ms: [HeapController] Limit: old size: 34122 KB, new limit: 112602 KB (3.3)',
].join('\n');

test('the heap limits of the main thread are read in order, with the speeds each factor came from; other threads are left out', () => {
  expect(mainThreadHeapLimits(TRACE)).toEqual([
    { at_ms: 475, factor: 4, speed_ratio: 0, gc_mb_s: 0, old_gen_fill_mb_s: 35.02, live_mb: 11.9, limit_mb: 55.4 },
    { at_ms: 31789, factor: 3.3, speed_ratio: 46, gc_mb_s: 96.7, old_gen_fill_mb_s: 2.1, live_mb: 33.3, limit_mb: 110 },
  ]);
});

test('a trace without a full collection has no limits, and says so', () => {
  expect(mainThreadHeapLimits('ready\n')).toEqual([]);
  expect(describeHeapLimits([])).toBe('no full collection traced');
  expect(describeHeapLimits(mainThreadHeapLimits(TRACE))).toContain(
    'x3.3 at 31.8 s (33.3 -> 110 MB; ratio 46: gc 96.7 MB/s, filling 2.1 MB/s)',
  );
});
