/**
 * editPlan and rerunFrom: a plan version a person makes. The update's validator checks what it can at once (stage,
 * version, four eyes); the handler applies the patch, validates the result with the `checkPlan` activity (the
 * validator of generated plans) and refuses it naming every issue, the run unchanged, or gives it to the run:
 * PLANNING records it as the next version (reason `human_edit` or `rerun`), then it is critiqued and approved like
 * any other. A re-run keeps every completed step outside the re-run step's downstream cone (results by reference)
 * and gives the cone's steps a new idempotency scope.
 */
import { isCancellation } from '@temporalio/workflow';
import { planFailureToApplicationFailure, readFailure } from '../api/failures';
import { MESSAGE_NAMES, parseMessagePayload, type EditPlanInput, type RerunFromInput } from '../api/messages';
import type { RerunInput } from '../api/input';
import type { GivenPlan, PlanningState } from '../api/state';
import { canonicalJson } from '../domain/canonical-json';
import { createPlanVersion } from '../domain/diff';
import { formatZodIssues, InvalidInputError, PlannerError, PlanValidationError } from '../domain/errors';
import { applyJsonPatch, jsonChanges } from '../domain/json-patch';
import { flattenSteps, PlanSchema, type Plan } from '../domain/plan';
import { downstreamCone } from '../domain/rerun';
import { isTerminal } from '../domain/stages';
import { planningActivities } from './activities';
import { nowIso } from './initial-state';
import { archiveOldVersions } from './phases/archive';
import type { PlanningRun } from './run';
import { stepKey } from './step-key';
import { failedWhile, move, type Transition } from './transitions';

function refuse(message: string, hint: string): never {
  throw planFailureToApplicationFailure(new InvalidInputError(message, hint));
}

/** PlannerErrors (a bad payload, a patch that cannot apply) as the update's typed failure. */
function typed<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof PlannerError) throw planFailureToApplicationFailure(err);
    throw err;
  }
}

/** A plan without what the run stamps on every version (its number and time): what a person changed stands out. */
const unstamped = (plan: Plan) => ({ ...plan, version: null, metadata: { ...plan.metadata, created_at: null } });

const nextVersion = (state: PlanningState): number => (state.versions.at(-1)?.version ?? 0) + 1;

/** An edit is for the version awaiting approval, not yet decided; under four eyes it names who edits. */
export function checkEdit(state: PlanningState, payload: unknown): EditPlanInput {
  const edit = typed(() => parseMessagePayload(MESSAGE_NAMES.editPlan, payload));
  const current = state.plan?.version;
  if (state.stage !== 'AWAITING_APPROVAL' || state.approval?.status !== 'pending')
    refuse(
      `editPlan refused: no plan awaits approval (stage ${state.stage}${state.approval?.status === 'edited' ? ', an edit is being recorded' : ''})`,
      'Query getState; edit only while the stage is AWAITING_APPROVAL (a closed run: `planner rerun`).',
    );
  if (edit.plan_version !== current)
    refuse(
      `editPlan refused: the edit is of plan v${edit.plan_version}, but the plan awaiting approval is v${current}`,
      `Query getState, edit plan v${current}, and send {"plan_version": ${current}, …}.`,
    );
  if (state.options.four_eyes && edit.identity === undefined)
    refuse(
      `editPlan refused by four_eyes: the edit of plan v${current} names no identity, so its editor could approve it`,
      'Send {"identity": "<who edits>", …}; PlannerClient and `planner edit` send their client identity.',
    );
  return edit;
}

/** Where a re-run may start: a plan awaiting approval, or execution with a step awaiting a person's decision. */
export function checkRerun(state: PlanningState, payload: unknown): RerunFromInput {
  const rerun = typed(() => parseMessagePayload(MESSAGE_NAMES.rerunFrom, payload));
  const hint =
    'rerunFrom is taken while a plan awaits approval or a step awaits a decision (resolveStep); for a closed run, `planner rerun <id> --from <step>` starts a new run from its stored results.';
  if (isTerminal(state.stage)) refuse(`rerunFrom refused: the run is ${state.stage}, so it is closed`, hint);
  const awaiting = state.stage === 'AWAITING_APPROVAL' && state.approval?.status === 'pending';
  const deciding = state.stage === 'EXECUTING' && state.steps.some((s) => waitsForDecision(s));
  if (!awaiting && !deciding)
    refuse(
      `rerunFrom refused: stage ${state.stage} with no plan awaiting approval and no step awaiting a decision`,
      hint,
    );
  const running = state.stage === 'EXECUTING' ? state.steps.filter((s) => s.status === 'RUNNING').map((s) => s.id) : [];
  if (running.length > 0)
    // a step that finishes after the re-run is given would keep a result the re-run drops
    refuse(`rerunFrom refused: step(s) ${running.join(', ')} still running`, `${hint} Send it again once they end.`);
  if (Object.keys(state.completed_steps).length === 0)
    refuse(
      'rerunFrom refused: no step has completed, so there is nothing to keep',
      `${hint} To change the plan, editPlan.`,
    );
  if (!state.plan || !flattenSteps(state.plan).some((s) => s.id === rerun.step))
    refuse(
      `rerunFrom refused: plan v${state.plan?.version} has no step "${rerun.step}"`,
      `Name a step of ${
        state.plan
          ? flattenSteps(state.plan)
              .map((s) => s.id)
              .join(', ')
          : 'the plan'
      }.`,
    );
  return rerun;
}

const waitsForDecision = (s: PlanningState['steps'][number]): boolean =>
  s.status === 'WAITING' && s.waiting?.for === 'decision' && s.reply === undefined;

/** `base` changed by a plan or a patch, stamped as the run's next version (id, version, time). */
function candidateOf(state: PlanningState, change: { plan?: Record<string, unknown>; patch?: unknown }): unknown {
  const base = state.plan!;
  const changed = change.plan ?? (change.patch ? typed(() => applyJsonPatch(base, change.patch)) : base);
  if (changed === null || typeof changed !== 'object' || Array.isArray(changed)) return changed; // the validator says why
  const metadata = (changed as { metadata?: unknown }).metadata;
  return {
    ...changed,
    id: state.plan_id ?? base.id,
    version: nextVersion(state),
    ...(metadata && typeof metadata === 'object' ? { metadata: { ...metadata, created_at: nowIso() } } : {}),
  };
}

/** The candidate validated as a generated plan is (the checkPlan activity): refused naming every issue. */
async function validated(run: PlanningRun, candidate: unknown, what: string) {
  const { issues, routes, plan } = await planningActivities(`check ${what}`, true).checkPlan({
    plan: candidate,
    request: run.state.request,
  });
  if (issues.length > 0) throw planFailureToApplicationFailure(new PlanValidationError(issues));
  return { plan: (plan ?? candidate) as Plan, routes };
}

const sameSteps = (a: Plan, b: Plan) => canonicalJson(unstamped(a)) === canonicalJson(unstamped(b));

export async function editPlan(run: PlanningRun, payload: unknown): Promise<string> {
  const candidate = candidateOf(run.state, checkEdit(run.state, payload));
  const version = nextVersion(run.state);
  const { plan, routes } = await validated(run, candidate, `edit of plan v${run.state.plan!.version}`);
  const { comment, identity: by } = checkEdit(run.state, payload); // the run may have moved on meanwhile
  const base = run.state.plan!;
  if (sameSteps(base, plan))
    refuse(
      `editPlan refused: the edit leaves plan v${base.version} as it is`,
      'Change a step, or approve it as it is.',
    );
  const given: GivenPlan = {
    plan,
    reason: 'human_edit',
    explanation: `edited by ${by ?? 'a person'}${comment ? `: ${comment}` : ''}`,
    routes,
    ...(by !== undefined ? { by } : {}),
  };
  run.givePlan(
    { given_plan: given, ...(by !== undefined ? { last_edited_by: by } : {}), ...decided(run.state, by) },
    `plan v${base.version} edited${by ? ` by ${by}` : ''} into v${version}: ${jsonChanges(unstamped(base), unstamped(plan)).join(', ')}`,
    { by, decision: 'edit' },
  );
  return `plan v${version} recorded from your edit of v${base.version}; it is critiqued and awaits approval again`;
}

/** The approval a person's plan ends: the version awaiting approval is decided (`edited`), so a late approve is refused. */
function decided(state: PlanningState, by: string | undefined): Partial<PlanningState> {
  if (state.stage !== 'AWAITING_APPROVAL') return {};
  return {
    approval: { status: 'edited', ...(by !== undefined ? { by } : {}) },
    last_decision: { version: state.plan!.version, status: 'edited' },
  };
}

export async function rerunFrom(run: PlanningRun, payload: unknown): Promise<string> {
  const { step: from, patch } = checkRerun(run.state, payload);
  const candidate = candidateOf(run.state, { patch });
  const version = nextVersion(run.state);
  const { plan, routes } = await validated(run, candidate, `re-run from step ${from}`);
  const { identity: by } = checkRerun(run.state, payload); // the run may have moved on meanwhile
  const state = run.state;
  const cone = downstreamCone(flattenSteps(plan), from);
  if (!cone) refuse(`rerunFrom refused: the patched plan has no step "${from}"`, 'Keep the step you re-run from.');
  const inCone = [...flattenSteps(state.plan!), ...flattenSteps(plan)].filter((s) => cone.includes(s.id));
  const dropped = new Set(inCone.map(stepKey));
  const completed = Object.fromEntries(Object.entries(state.completed_steps).filter(([k]) => !dropped.has(k)));
  const kept = flattenSteps(plan)
    .filter((s) => !cone.includes(s.id) && completed[stepKey(s)])
    .map((s) => s.id);
  const effects = inCone.filter((s) => s.tool && state.routes[s.tool]?.idempotent !== true).map((s) => s.id);
  const scopes = { ...state.rerun_scopes };
  for (const id of new Set(effects)) scopes[id] = (scopes[id] ?? 0) + 1;
  const note = `re-run from step ${from}${by ? ` by ${by}` : ''} as plan v${version}: runs ${cone.join(', ')} again; keeps ${kept.join(', ') || 'no step'} (results by reference)${effects.length ? `; side-effecting step(s) ${[...new Set(effects)].join(', ')} get a new idempotency scope: their effects are meant to happen again` : ''}${patch ? `; patched: ${jsonChanges(unstamped(state.plan!), unstamped(plan)).join(', ')}` : ''}`;
  const given: GivenPlan = { plan, reason: 'rerun', explanation: note, routes, ...(by !== undefined ? { by } : {}) };
  const replies = state.steps.map((s) =>
    waitsForDecision(s) ? { ...s, reply: { decision: 'fail' as const, text: `re-run from step ${from}` } } : s,
  );
  run.givePlan(
    { given_plan: given, completed_steps: completed, rerun_scopes: scopes, steps: replies, ...decided(state, by) },
    note,
    { by, decision: 'rerun' },
  );
  return `plan v${version} re-runs ${cone.join(', ')} from step ${from}; kept: ${kept.join(', ') || 'none'}`;
}

/**
 * PLANNING with a given plan: it becomes the next version (a re-run's input plan, version 1, is validated here first;
 * an invalid one fails the run), with the routes of its tools, then CRITIQUING.
 */
export async function recordGivenPlan(run: PlanningRun, given: GivenPlan): Promise<Transition> {
  let checked = given;
  if (given.reason === 'initial') {
    try {
      checked = { ...given, ...(await validated(run, given.plan, 'the re-run plan')) };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return failedWhile('planning', readFailure(err));
    }
  }
  const parent = run.state.versions.at(-1) ?? null;
  const version = (parent?.version ?? 0) + 1;
  const plan: Plan = { ...checked.plan, id: run.planId(), version };
  const record = {
    ...createPlanVersion(plan, parent, parent ? given.reason : 'initial'),
    explanation: given.explanation,
    created_at: nowIso(),
    ...(given.by !== undefined ? { by: given.by } : {}),
    ...(parent ? { json_changes: jsonChanges(unstamped(parent.plan), unstamped(plan)) } : {}),
  };
  run.givePlan(
    { given_plan: null },
    `v${version} (${record.reason}) given${given.by ? ` by ${given.by}` : ''}${given.reason === 'initial' ? ` (${given.explanation})` : ''}: ${plan.status}, ${flattenSteps(plan).length} step(s)${record.diff ? `; ${record.diff.summary}` : ''}`,
    { by: given.by },
  );
  run.recordPlan(record);
  run.addRoutes(checked.routes);
  await archiveOldVersions(run);
  return move('CRITIQUING', `plan v${version} (${record.reason}) ready for review`);
}

/**
 * A re-run of a closed run starts with the old run's plan given (PLANNING records it as version 1 once it validates)
 * and the old run's completed steps outside the cone of `from`; its new run chain gives every side effect a new key.
 */
export function rerunStart(rerun: RerunInput): Partial<PlanningState> {
  const parsed = PlanSchema.safeParse(rerun.plan);
  const steps = parsed.success ? flattenSteps(parsed.data) : [];
  const cone = downstreamCone(steps, rerun.from);
  if (!cone)
    throw planFailureToApplicationFailure(
      new InvalidInputError(
        `invalid re-run: ${parsed.success ? `the plan has no step "${rerun.from}"` : `the plan is not a plan (${formatZodIssues(parsed.error).slice(0, 3).join('; ')})`}`,
        "Re-run from a step of the closed run's plan (`planner show <id> --json`).",
      ),
    );
  const dropped = new Set(steps.filter((s) => cone.includes(s.id)).map(stepKey));
  const completed = Object.fromEntries(Object.entries(rerun.completed_steps).filter(([k]) => !dropped.has(k)));
  const kept = steps.filter((s) => !cone.includes(s.id) && completed[stepKey(s)]).map((s) => s.id);
  return {
    rerun_of: { workflow_id: rerun.of, from: rerun.from },
    completed_steps: completed,
    given_plan: {
      plan: rerun.plan as Plan,
      reason: 'initial',
      explanation: `re-run of ${rerun.of} from step ${rerun.from}: runs ${cone.join(', ')} again under this run's own idempotency keys (their effects are meant to happen again); keeps ${kept.join(', ') || 'no step'} (results by reference)`,
      routes: {},
    },
  };
}
