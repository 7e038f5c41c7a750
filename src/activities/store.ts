/**
 * Content-store activities for workflow code, which cannot touch the disk: `storeContent` (e.g. an LLM prompt or
 * response, a large intermediate value) returns its ref; `loadContent` reads a ref back.
 */
import type { ContentStore, StoredRef } from '../store/content-store';
import { withPlannerFailures } from './failures';

export function createStoreActivities(store: ContentStore) {
  return {
    storeContent: withPlannerFailures(async (value: unknown): Promise<StoredRef> => await store.put(value)),
    /** A missing or malformed ref fails non-retryably (InvalidInputError, PLAN-006). */
    loadContent: withPlannerFailures(async (ref: string): Promise<unknown> => await store.get(ref)),
  };
}

export type StoreActivities = ReturnType<typeof createStoreActivities>;
