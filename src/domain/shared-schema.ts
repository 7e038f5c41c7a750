/**
 * Schemas built once per worker thread and shared by every workflow run on it.
 *
 * Temporal's reusable V8 context evaluates a workflow's modules afresh for each run, so a module-level schema would be
 * rebuilt, with zod's library, at the start of every run: in the bench that was most of a run's workflow CPU and
 * garbage. This module is preloaded (PLANNER_BUNDLER_OPTIONS in src/worker.ts): the SDK evaluates it, and zod, once
 * per thread and freezes what they export, while `built` stays out of its reach. A schema is an immutable value, so
 * sharing it shares no run's state and changes no workflow command. Outside the sandbox this is a plain memo.
 * Re-measured in issue 34 against building each schema at every call: without it the planner's worker peaked about
 * 100 MB higher in every round of the bench (docs/performance.md, "Tactics kept and why").
 */
import { z } from 'zod';

const built = new Map<string, unknown>();

/** The schema under `key` (one per module-level schema, `<module>#<name>`), built by `build` the first time. */
export function sharedSchema<S>(key: string, build: () => S): S {
  let schema = built.get(key) as S | undefined;
  if (schema === undefined) built.set(key, (schema = build()));
  return schema;
}

/**
 * Built at preload because zod sets its two global defaults when it first builds a schema (English messages) and a
 * container such as an object (the parse memoizer): set later, in a run, they would meet the frozen config and every
 * run's first schema would throw. Every workflow test runs on a bundle preloaded this way.
 */
sharedSchema('domain/shared-schema#ZodDefaults', () => z.object({ set: z.string() }));
