/** PLANNING: a new plan version (first, refined, after a rejection or a failed step) and the routes of its tools. */
import { LLM_CALL_ESTIMATE } from '../../domain/budget';
import { createPlanVersion, type PlanDiff } from '../../domain/diff';
import { PlanImpossibleError } from '../../domain/errors';
import { flattenSteps } from '../../domain/plan';
import { planningActivities } from '../activities';
import { nowIso } from '../initial-state';
import { llmSettingsOf } from '../llm-settings';
import { recordGivenPlan } from '../plan-edits';
import type { PlanningRun } from '../run';
import { failWith, move, type Transition } from '../transitions';
import { archiveOldVersions } from './archive';
import { pauseForBudget } from './budget';
import { planningCall } from './planning-call';

/**
 * Whether the run's caller gave context messages (the clarifications' questions and answers, two messages each, are
 * the run's own). Such a run neither reads nor writes the plan cache: the key holds the context too, but text a caller
 * can write (a `system` message) is kept from ever shaping a plan another run gets, should the key miss a part.
 */
function hasCallerContext(state: PlanningRun['state']): boolean {
  return state.request.context.length > 2 * state.clarifications.length;
}

export async function plan(run: PlanningRun): Promise<Transition> {
  if (run.state.given_plan) return await recordGivenPlan(run, run.state.given_plan); // a person's (../plan-edits.ts)
  const pause = run.mayCallLlm ? pauseForBudget(run, LLM_CALL_ESTIMATE, 'plan generation') : null;
  if (pause) return pause;
  const { state } = run;
  const { reason, feedback } = state.next_version_reason;
  const parent = state.versions.at(-1) ?? null;
  const version = (parent?.version ?? 0) + 1;
  const stamp = { id: run.planId(), version, created_at: nowIso() };
  const planCacheOff = state.options.plan_cache === 'off' || hasCallerContext(state);
  const called = await planningCall(
    run,
    {
      kind: 'plan',
      charged: `plan v${version}`,
      failed: { charge: 'failed plan generation', while: 'planning' },
      withoutLlm: {
        note: (failure) =>
          `plan v${version}: every LLM provider failed (${failure.message}); planner auto falls back to the ranking planner`,
        again: () => plan(run),
      },
    },
    () =>
      planningActivities(`plan v${version} (${reason})`, !run.mayCallLlm).generatePlan({
        request: state.request,
        requirements: state.requirements!,
        stamp,
        refinement: parent ? { previous: parent.plan, feedback } : undefined,
        budget: state.budget, // the limits now, raises included (request.budget is what the run started with)
        ...(state.options.trim_to_budget ? { trim_to_budget: true } : {}),
        ...(planCacheOff ? { plan_cache: 'off' as const } : {}),
        with_routes: true, // the routes come with the plan: one local activity fewer
        ...llmSettingsOf(run),
      }),
  );
  if (called.next) return called.next;
  const generated = called.result;
  const { plan: generatedPlan, transcript_ref } = generated;
  const record = {
    ...createPlanVersion(generatedPlan, parent, reason),
    explanation: feedback.join('\n') || 'first plan for the goal',
    created_at: nowIso(),
    ...(transcript_ref ? { transcript_ref } : {}),
    ...(generated.unsaid ? { unsaid: generated.unsaid } : {}),
  };
  const unhonoured = reason === 'human_rejection' ? unhonouredRejection(record, feedback, generated.planner) : null;
  if (unhonoured) Object.assign(record, { unhonoured_rejection: unhonoured });
  const by = `${generated.planner ? ` by the ${generated.planner} planner` : ''}${generated.from_cache ? ` from cache (planned ${generated.from_cache})` : ''}`;
  run.audit(
    'plan',
    `v${version} (${reason})${by}: ${generatedPlan.status}, ${flattenSteps(generatedPlan).length} step(s)${record.diff ? `; ${record.diff.summary}` : ''}`,
    { ref: transcript_ref },
  );
  if (unhonoured) run.audit('plan', unhonoured);
  run.recordPlan(record);
  await archiveOldVersions(run);
  if (generatedPlan.status === 'IMPOSSIBLE') {
    return failWith(new PlanImpossibleError(generatedPlan.missing_capabilities, { plan_version: version }));
  }
  if (generatedPlan.status === 'PARTIAL')
    run.warn(`plan v${version} is PARTIAL: missing ${generatedPlan.missing_capabilities.join('; ')}`);
  const tools = [...new Set(flattenSteps(generatedPlan).flatMap((s) => (s.tool ? [s.tool] : [])))];
  const routes =
    generated.routes ??
    (await planningActivities('look up tool pools', true).lookupTools({
      tool_catalog: state.request.tool_catalog,
      tools,
    }));
  run.addRoutes(routes);
  return move('CRITIQUING', `plan v${version} ready for review`);
}

/**
 * A version made for a person's rejection that changes no step cannot honour the reason. It is said, and the version
 * waits for a person whatever the approval option (critique): approving the same plan anew, or rejecting it again (to
 * max_rejections), is theirs to decide, never a loop the run makes by itself.
 */
function unhonouredRejection(
  record: { version: number; parent_version: number | null; diff: PlanDiff | null },
  feedback: readonly string[],
  planner: string | undefined,
): string | null {
  const { diff } = record;
  if (!diff || diff.added.length + diff.removed.length + diff.changed.length > 0) return null;
  const reasons = feedback.map((f) => f.replace(/^rejected by a person: /, '')).join('; ');
  return `plan v${record.version} has no step changes from the rejected v${record.parent_version}: the ${planner ?? "run's"} planner cannot honour the reason (${reasons}); approve it as it is, reject it again, or cancel the run`;
}
