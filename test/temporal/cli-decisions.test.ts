/**
 * `planner approve <id>` and `planner reject <id>` without `--version` decide on the version they read as awaiting
 * approval, and send it: a version replaced before the decision lands (another reviewer's rejection, say) is refused,
 * never decided unseen. The CLI runs in this process (`main`), against the test server, so another reviewer's decision
 * can land between its read and its update.
 */
import { BENCH_GOAL } from '../../bench/bench-pack';
import { approveUpdate, getStateQuery, rejectUpdate } from '../../src/api';
import { main } from '../../src/cli/planner';
import { PlannerClient } from '../../src/client';
import { cliIdentity } from '../../src/cli/context';
import { useBenchPlanner } from '../support/bench-planner';
import { testAddress, waitFor } from '../support/temporal';

const bench = useBenchPlanner('cli-decisions');
afterEach(() => jest.restoreAllMocks());

/** `planner …args` in this process: its exit code and what it printed. */
async function runCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => ((stdout += chunk.toString()), true));
  jest
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk: string | Uint8Array) => ((stderr += chunk.toString()), true));
  try {
    process.exitCode = undefined;
    return { code: await main(['node', 'planner', '--address', testAddress(), ...args]), stdout, stderr };
  } finally {
    jest.mocked(process.stdout.write).mockRestore();
    jest.mocked(process.stderr.write).mockRestore();
    process.exitCode = undefined;
  }
}

const runAwaitingApproval = (name: string) => bench.startWaiting(name, BENCH_GOAL, 'AWAITING_APPROVAL');

/** The payloads of the run's accepted `name` updates, in order. */
async function acceptedPayloads(
  handle: Awaited<ReturnType<typeof runAwaitingApproval>>,
  name: string,
): Promise<unknown[]> {
  return (await handle.fetchHistory()).events!.flatMap((e) => {
    const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    return input?.name === name ? [JSON.parse(Buffer.from(input.args!.payloads![0]!.data!).toString('utf8'))] : [];
  });
}

test('`planner approve <id>` without --version approves the version awaiting approval, sends it and names it', async () => {
  const handle = await runAwaitingApproval('cli-approve-shown');
  const approved = await runCli('approve', handle.workflowId);
  expect(approved).toMatchObject({ code: 0, stdout: `${handle.workflowId}: plan v1 approved\n` });
  expect(await acceptedPayloads(handle, 'approve')).toEqual([{ plan_version: 1, identity: cliIdentity() }]); // who approved, too (issue 37)
  expect(await handle.result()).toMatchObject({ stage: 'COMPLETED', plan_version: 1 });
});

test.each([
  [
    'approve',
    [],
    'rejected',
    (id: string) =>
      bench
        .client()
        .workflow.getHandle(id)
        .executeUpdate(rejectUpdate, { args: [{ plan_version: 1, reason: 'another reviewer' }] }),
  ],
  [
    'reject',
    ['--reason', 'too broad'],
    'approved',
    (id: string) =>
      bench
        .client()
        .workflow.getHandle(id)
        .executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] }),
  ],
] as const)(
  '`planner %s <id>` without --version, when another reviewer decides v1 first: refused naming that decision, the next version is not decided unseen',
  async (command, flags, other, otherReviewer) => {
    const handle = await runAwaitingApproval(`cli-${command}-raced`);
    const send = PlannerClient.prototype[command];
    // The other reviewer's decision lands after the CLI has read the run and before its update reaches it.
    jest.spyOn(PlannerClient.prototype, command).mockImplementation(async function (
      this: PlannerClient,
      ...args: Parameters<typeof send>
    ) {
      await otherReviewer(handle.workflowId);
      if (other === 'rejected') {
        await waitFor(
          async () => {
            const { stage, plan } = await handle.query(getStateQuery);
            return stage === 'AWAITING_APPROVAL' && plan?.version === 2;
          },
          30_000,
          'v2 awaiting approval',
        );
      }
      return await (send as (...a: typeof args) => Promise<string>).apply(this, args);
    });
    const decided = await runCli(command, handle.workflowId, ...flags);
    expect(decided.code).toBe(2);
    expect(decided.stderr).toContain(
      `error: the run refused it: ${command} refused: plan v1 was already ${other} by an earlier update`,
    );
    const state = await handle.query(getStateQuery);
    if (other === 'rejected')
      expect(state).toMatchObject({
        stage: 'AWAITING_APPROVAL',
        plan: { version: 2 },
        approval: { status: 'pending' },
      });
    else expect(state.audit.filter((a) => a.kind === 'approval').map((a) => a.message)).toEqual(['approved']);
    await handle.cancel();
  },
);
