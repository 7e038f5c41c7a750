/**
 * The bench's baseline: the least a Temporal workflow can do for the planner's bench plan — ten no-op activities
 * in two parallel chains of five, each activity taking the ids the previous one of its chain returned. No analysis,
 * planning, critique, state machine, search attributes or budget: what the planner adds on top is what the bench
 * measures against this. `activityQueue` puts the activities on a second task queue (the split-pool topology);
 * by default they run on the workflow's own queue. `localActivities` (a control experiment of the bench, 0 by
 * default) runs that many no-op local activities one after another before the chains, as the planner runs its
 * analysis, plan and critique. `visibility` (a control experiment too, off by default) publishes what a planner run
 * publishes for operators: a patch marker (and the search attribute the SDK upserts with it), the memo, search
 * attributes when the chains start and the stage when they end.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import {
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';

/**
 * The planner's search attributes, by the names and types the bench's server registers. Not imported from
 * src/api/search-attributes.ts: that module brings the planner's word helpers into the raw bundle, to be evaluated
 * in every raw run.
 */
const stage = defineSearchAttributeKey('PlanStage', SearchAttributeType.KEYWORD);
const version = defineSearchAttributeKey('PlanVersion', SearchAttributeType.INT);
const cost = defineSearchAttributeKey('PlanCostSpent', SearchAttributeType.DOUBLE);
const tokens = defineSearchAttributeKey('PlanTokensSpent', SearchAttributeType.INT);
const keywords = defineSearchAttributeKey('PlanGoalKeywords', SearchAttributeType.KEYWORD_LIST);

export interface BaselineActivities {
  noop(input: { tool: string; ids: string[] }): Promise<{ id: string }[]>;
}

export async function baselineWorkflow(input: {
  branches: string[][];
  activityQueue?: string;
  localActivities?: number;
  visibility?: boolean;
}): Promise<number> {
  if (input.visibility) {
    patched('bench-visibility-control');
    upsertMemo({ goal: 'bench' });
  }
  if (input.localActivities) {
    const local = proxyLocalActivities<BaselineActivities>({ startToCloseTimeout: '1 minute' });
    for (let i = 0; i < input.localActivities; i++) await local.noop({ tool: `local-${i}`, ids: [] });
  }
  const { noop } = proxyActivities<BaselineActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
    ...(input.activityQueue ? { taskQueue: input.activityQueue } : {}),
  });
  const chains = input.branches.map(async (chain) => {
    let ids: string[] = [];
    for (const tool of chain) ids = (await noop({ tool, ids })).map((r) => r.id);
    return chain.length;
  });
  if (input.visibility) {
    upsertSearchAttributes([
      {
        key: keywords,
        value: ['run', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'],
      },
      { key: stage, value: 'EXECUTING' },
      { key: version, value: 1 },
      { key: cost, value: 0 },
      { key: tokens, value: 0 },
    ]);
  }
  const steps = (await Promise.all(chains)).reduce((a, b) => a + b, 0);
  if (input.visibility) upsertSearchAttributes([{ key: stage, value: 'COMPLETED' }]);
  return steps;
}
