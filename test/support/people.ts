/**
 * People deciding on runs (issue 37), for the tests on the dev server: a client acting as one person, the wait for a
 * plan version to await approval, the stage lines of the audit, an update's refusal, and the invoicing tools whose
 * side effect a person must approve first.
 */
import { z } from 'zod';
import type { PlanningState } from '../../src/api';
import { PlannerClient } from '../../src/client';
import { defineTool } from '../../src/tools/define-tool';
import { testAddress, waitFor } from './temporal';

/** A PlannerClient on the tests' dev server whose every start and update names `identity`. */
export async function connectAs(identity: string): Promise<PlannerClient> {
  const address = testAddress();
  return await PlannerClient.connect({ address, namespace: 'default', connectionOptions: { address } }, { identity });
}

/**
 * One client per person for the calling test file, by name (`{ alice: 'alice@ops' }`): connected before its tests,
 * closed after. Read its members inside tests and hooks, once they are connected.
 */
export function usePeople<Name extends string>(identities: Record<Name, string>): Record<Name, PlannerClient> {
  const people = {} as Record<Name, PlannerClient>;
  const names = Object.keys(identities) as Name[];
  beforeAll(async () => {
    for (const name of names) people[name] = await connectAs(identities[name]);
  });
  afterAll(async () => {
    for (const name of names) await people[name]?.close();
  });
  return people;
}

/** The state once plan `version` of `workflowId` awaits approval; a timeout says where the run is instead. */
export async function awaitingApproval(
  reader: Pick<PlannerClient, 'state'>,
  workflowId: string,
  version = 1,
): Promise<PlanningState> {
  let state: PlanningState | undefined;
  await waitFor(
    async () => {
      state = await reader.state(workflowId);
      return state.stage === 'AWAITING_APPROVAL' && state.plan?.version === version;
    },
    30_000,
    `${workflowId} awaiting approval of v${version}`,
  ).catch((err: Error) => {
    throw new Error(
      `${err.message}; it is in ${state?.stage}: ${state?.audit
        .slice(-4)
        .map((a) => a.message)
        .join(' | ')}`,
    );
  });
  return state!;
}

/** The messages of the audit's stage transitions, in order. */
export const stagesOf = (state: PlanningState): string[] =>
  state.audit.filter((a) => a.kind === 'stage').map((a) => a.message);

/** What `sent` was refused with (null when it was accepted). */
export const refusal = (sent: Promise<unknown>): Promise<unknown> =>
  sent.then(
    () => null,
    (e: unknown) => e,
  );

/**
 * A read-only listing of overdue invoices (INV-7 of Acme) and a side-effecting, keyed reminder that records the
 * customers of each call it makes in `sent`: the effect that must wait for a person.
 */
export function invoicingTools(sent: string[][]) {
  return [
    defineTool({
      name: 'list_overdue_invoices',
      description: 'List the invoices past their due date.',
      params: z.object({}),
      result: z.array(z.object({ id: z.string(), customer: z.string() })),
      idempotent: true,
      tags: ['invoice', 'overdue', 'list'],
      run: async () => [{ id: 'INV-7', customer: 'Acme' }],
    }),
    defineTool({
      name: 'send_payment_reminders',
      description: 'Email a payment reminder to each customer with an overdue invoice.',
      params: z.object({ customers: z.array(z.string()).min(1) }),
      result: z.object({ sent: z.number() }),
      idempotent: false,
      keyed: true,
      tags: ['reminder', 'email', 'send'],
      run: async ({ customers }) => {
        sent.push(customers);
        return { sent: customers.length };
      },
    }),
  ];
}
