/**
 * The CLI's terminal safety (one function for every human output) and its explanation of a query that got no answer
 * (issue #13): only a RUNNING run with no failing workflow task and no poller is "no worker answered".
 */
import { ServiceError } from '@temporalio/client';
import { renderHistory, renderRuns, renderState } from '../../../src/cli/render';
import { explainUnanswered, isUnansweredQuery, type RunTruth } from '../../../src/cli/run-truth';
import { safeJson, terminalSafe } from '../../../src/cli/safe-text';
import type { StateView } from '../../../src/cli/json-views';

const ESC = '\x1b';
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

describe('terminalSafe', () => {
  test('escapes C0, DEL, C1 and bidi overrides; keeps newlines and tabs only in multi-line output', () => {
    expect(terminalSafe(`a${ESC}[31mb\u009b2J\u007f\r\u202e`)).toBe('a\\x1b[31mb\\x9b2J\\x7f\\r\\u202e');
    expect(terminalSafe('one\ntwo\tx')).toBe('one\\ntwo\\tx');
    expect(terminalSafe(`one\ntwo\t${ESC}`, { multiline: true })).toBe('one\ntwo\t\\x1b');
    expect(terminalSafe('Plan v1 → v2 · ünïcode')).toBe('Plan v1 → v2 · ünïcode');
  });

  test('safeJson is the same JSON value with no raw control character', () => {
    const value = { goal: `x${ESC}[2J\u009b\u202ey\n` };
    const text = safeJson(value);
    expect(text).not.toMatch(RAW);
    expect(JSON.parse(text)).toEqual(value);
  });

  test('the renderers escape every run-provided field', () => {
    const evil = `${ESC}]0;pwned\x07\u009b31m\nforged line`;
    const view: StateView = {
      workflowId: 'w',
      stage: 'AWAITING_CLARIFICATION',
      goal: evil,
      plan: {
        id: 'p',
        version: 1,
        status: 'FEASIBLE',
        goal: evil,
        missingCapabilities: [evil],
        estimate: { calls: 2, tokens: 600, costUsd: 0.0002, durationMs: 1_000 },
        assumptions: [evil],
        complexity: 1,
        tasks: [
          {
            id: 't',
            title: evil,
            description: evil,
            dependsOn: [evil],
            complexity: 1,
            resources: {
              tools: [evil],
              reads: [],
              writes: [],
              side_effects: [evil],
              files_read: [],
              files_written: [],
              folders_created: [],
              commands: [evil],
            },
            acceptanceCriteria: [
              {
                id: evil,
                description: evil,
                test: true,
                assertion: { kind: 'step_completed', step: 's' },
                result: { passed: false, detail: evil },
              },
            ],
            checked: { passed: false },
            steps: [
              {
                id: 's',
                title: evil,
                action: evil,
                tool: 'x',
                params: { q: evil },
                dependsOn: [],
                parallel: false,
                expectedOutput: '',
                description: evil,
                verification: [evil],
                status: 'FAILED',
                items: 1,
                preview: evil,
                error: { code: 'PLAN-008', message: evil },
              },
            ],
          },
        ],
      },
      versions: [],
      budget: {
        policy: 'block',
        limit: { costUsd: 1, tokens: 1, calls: 1 },
        spent: { costUsd: 0, tokens: 0, calls: 0 },
      },
      question: { text: evil, options: [evil], default: 1, askedAt: '' },
      approval: null,
      forecastOutcome: null,
      warnings: [evil],
      failure: { type: 'X', code: 'PLAN-008', message: evil, hint: evil },
      answer_note: evil,
      rerunOf: null,
    };
    const lines = [
      ...renderState(view),
      ...renderState(view, { task: 1 }), // one task shows its resources too
      ...renderRuns([
        {
          workflowId: 'w',
          runId: 'r',
          stage: null,
          status: 'RUNNING',
          goal: evil,
          planVersion: null,
          startTime: '2026-01-01T00:00:00.000Z',
          closeTime: null,
        },
      ]),
      ...renderHistory('w', [{ at: '2026-01-01T00:00:00.000Z', source: 'audit', kind: 'step', message: evil }]),
    ];
    for (const line of lines) {
      expect(line).not.toMatch(RAW);
      expect(line).not.toMatch(/^forged line/);
    }
    expect(lines.join('\n')).toContain('\\x1b]0;pwned\\x07\\x9b31m\\nforged line');
  });
});

describe('explainUnanswered', () => {
  const truth = (over: Partial<RunTruth>): RunTruth => ({
    workflowId: 'w',
    status: 'RUNNING',
    taskQueue: 'q',
    stage: null,
    goal: null,
    workflowTaskFailure: null,
    termination: null,
    failure: null,
    timedOut: false,
    outcome: null,
    pollers: 0,
    ...over,
  });
  const grpc = (code: number, details: string) =>
    Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  // What the client throws under load: its "Failed to query Workflow" around a gRPC status other than a deadline.
  const underLoad = new ServiceError('Failed to query Workflow', { cause: grpc(8, 'resource exhausted') });

  test('"Failed to query Workflow" (any gRPC status) and deadlines are unanswered queries', () => {
    expect(isUnansweredQuery(underLoad)).toBe(true);
    expect(isUnansweredQuery(new ServiceError('Failed to query Workflow', { cause: grpc(4, 'deadline') }))).toBe(true);
    expect(isUnansweredQuery(new Error('other'))).toBe(false);
  });

  test('a failing workflow task, a closed run, no poller and a busy worker are told apart', () => {
    expect(explainUnanswered(truth({ workflowTaskFailure: 'boom', pollers: 1 }), underLoad).message).toBe(
      "the run's workflow task keeps failing: boom",
    );
    expect(
      explainUnanswered(truth({ status: 'TERMINATED', termination: { reason: 'stop', identity: 'me' } }), underLoad)
        .message,
    ).toMatch(/^run w was terminated: stop \(by me\)/);
    expect(explainUnanswered(truth({ pollers: 0 }), underLoad).message).toMatch(
      /^no worker answered for run w: no worker polls its task queue q \(resource exhausted\)/,
    );
    const busy = explainUnanswered(truth({ pollers: 2 }), underLoad);
    expect(busy.message).toBe('the worker on task queue q did not answer for run w in time (resource exhausted)');
    expect(busy.hint).toContain('PLANNER_QUERY_TIMEOUT_MS');
  });
});
