// A domain module reaching up, for test/unit/lint.test.ts: lint refuses each marked line.
import type { PlannerStorage } from '../../../../src/store/storage'; // refused: the domain imports nothing above it, types neither
import { FAILURE_TYPES } from '../../../../src/api/failures'; // refused: the contract is above the domain
import { canonicalJson } from '../../../../src/domain/canonical-json'; // allowed: the domain itself

export const upward: unknown[] = [FAILURE_TYPES, canonicalJson, null as PlannerStorage | null];
