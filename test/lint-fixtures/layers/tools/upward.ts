// A service module (store, tools, llm, telemetry) reaching up, for test/unit/lint.test.ts: lint refuses each marked line.
import { planningCall } from '../../../../src/workflows/phases/planning-call'; // refused: a value from workflow code
import { createPlanningActivities } from '../../../../src/activities/planning'; // refused: a value from the activities
import type { PlanningRun } from '../../../../src/workflows/run'; // allowed: a type ties nothing at run time
import { canonicalJson } from '../../../../src/domain/canonical-json'; // allowed: the domain is below

export const upward: unknown[] = [planningCall, createPlanningActivities, canonicalJson, null as PlanningRun | null];
