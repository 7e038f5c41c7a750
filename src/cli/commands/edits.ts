/**
 * Commands that make a plan version by hand: `edit` (the plan awaiting approval, changed in $EDITOR, by a JSON Patch
 * file or by a whole plan file: the editPlan update) and `rerun` (a step and its downstream cone run again: the
 * rerunFrom update on an open run, a new run from the stored results of a closed one).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { MESSAGE_LIMITS } from '../../api/messages';
import { JsonPatchSchema, type JsonPatch } from '../../domain/json-patch';
import { isTerminal } from '../../domain/stages';
import { CliError, EXIT, cliConfig, output, parseArg, WorkflowIdSchema, withClient } from '../context';
import { shellArg, terminalSafe } from '../safe-text';
import { isTerminalSession } from '../watch';
import { action, onRun } from './runs';

/** A JSON file the user names: at most a message payload's size, parsed, or a usage error naming the file. */
function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    if (statSync(file).size > MESSAGE_LIMITS.payload_bytes)
      throw new CliError(`${what} ${file} is over ${MESSAGE_LIMITS.payload_bytes} bytes`, EXIT.usage);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read ${what} ${file}: ${(err as Error).message}`, EXIT.usage);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError(`${what} ${file} is not JSON: ${(err as Error).message}`, EXIT.usage);
  }
}

const readPatch = (file: string): JsonPatch =>
  parseArg(
    JsonPatchSchema,
    readJsonFile(file, 'patch'),
    'patch',
    'an RFC 6902 JSON Patch: [{"op": "replace", "path": "/tasks/0/steps/0/params/x", "value": 1}]',
  );

/** The plan opened in the user's editor, as `git commit` opens its message; the changed plan, or null if unchanged. */
function editInEditor(plan: unknown, label: string): unknown {
  const editor = cliConfig().editor;
  if (!editor)
    throw new CliError(
      'no editor: VISUAL and EDITOR are unset',
      EXIT.usage,
      'set EDITOR (e.g. EDITOR=nano), or pass --patch <file.json> or --plan <file.json>',
    );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'planner-edit-'));
  const file = path.join(dir, `${label}.json`);
  const before = `${JSON.stringify(plan, null, 2)}\n`;
  try {
    writeFileSync(file, before);
    // The shell splits the command as git does ("code --wait" works); the file is passed as an argument, never spliced in.
    const ran = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit' });
    if (ran.status !== 0)
      throw new CliError(
        `the editor (${editor}) exited with ${ran.status ?? ran.signal}: nothing was sent`,
        EXIT.error,
      );
    const after = readFileSync(file, 'utf8');
    return after === before ? null : readJsonFile(file, 'edited plan');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const EditFlagsSchema = z
  .object({
    version: z.coerce.number().int().min(1).max(1_000_000),
    patch: z.string().min(1).optional(),
    plan: z.string().min(1).optional(),
    comment: z.string().max(2_000).optional(),
  })
  .refine((f) => !(f.patch && f.plan), { message: 'give --patch or --plan, not both' });

const RerunFlagsSchema = z.object({
  from: z.string().trim().min(1).max(64),
  patch: z.string().min(1).optional(),
  id: WorkflowIdSchema.optional(),
  taskQueue: z.string().min(1).max(1000).optional(),
});

export function registerEditCommands(program: Command): void {
  program
    .command('edit')
    .description(
      'change the plan awaiting approval (params, steps, criteria): validated as a generated plan, recorded as the next version (human_edit), critiqued and awaiting approval again',
    )
    .argument('<id>', 'workflow id')
    .requiredOption('--version <n>', 'the plan version awaiting approval, as `planner show` prints it')
    .option('--patch <file.json>', 'an RFC 6902 JSON Patch over the plan (as `planner show --json` prints plan)')
    .option('--plan <file.json>', 'the whole changed plan')
    .option('--comment <text>', 'why, for the audit')
    .addHelpText(
      'after',
      '\nWithout --patch or --plan, at a terminal, the plan opens in $VISUAL or $EDITOR; save and quit to send it.\nUnder four_eyes, whoever edits a plan may not approve it.',
    )
    .action(
      action(async (opts, id: string) => {
        const flags = parseArg(EditFlagsSchema, opts, 'option', 'see `planner edit --help`');
        const change = flags.patch
          ? { patch: readPatch(flags.patch) }
          : flags.plan
            ? {
                plan: parseArg(
                  z.record(z.string(), z.unknown()),
                  readJsonFile(flags.plan, 'plan'),
                  'plan',
                  'a JSON object: the plan',
                ),
              }
            : undefined;
        if (!change && !isTerminalSession())
          throw new CliError(
            'no change given and no terminal to edit at',
            EXIT.usage,
            'pass --patch <file.json> or --plan <file.json>',
          );
        const reply = await onRun(opts, id, async (client, wid) => {
          let edit = change;
          if (!edit) {
            const state = await client.state(wid);
            if (state.stage !== 'AWAITING_APPROVAL' || state.plan?.version !== flags.version)
              throw new CliError(
                `plan v${flags.version} does not await approval (stage ${state.stage}, plan v${state.plan?.version ?? '-'})`,
                EXIT.usage,
                `see the run with \`planner show ${shellArg(wid)}\``,
              );
            const edited = editInEditor(state.plan, `${wid}-v${flags.version}`.replace(/[^\w.-]/g, '_'));
            if (edited === null) throw new CliError('the plan is unchanged: nothing was sent', EXIT.usage);
            edit = {
              plan: parseArg(z.record(z.string(), z.unknown()), edited, 'edited plan', 'a JSON object: the plan'),
            };
          }
          return await client.editPlan(wid, {
            plan_version: flags.version,
            ...edit,
            ...(flags.comment ? { comment: flags.comment } : {}),
          });
        });
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, editedVersion: flags.version, result: reply });
        else out.line(`${id}: ${terminalSafe(reply)}`);
      }),
    );

  program
    .command('rerun')
    .description(
      'run a step and every step downstream of it again, keeping the completed steps upstream (results by reference); a closed run is re-run as a new run',
    )
    .argument('<id>', 'workflow id')
    .requiredOption('--from <step>', 'the step to re-run from, as `planner show` prints it (e.g. 1.2)')
    .option('--patch <file.json>', 'an RFC 6902 JSON Patch applied to the plan first')
    .option('--id <workflowId>', "a closed run: the new run's workflow id (default: plan-<time>-<random>)")
    .option(
      '--task-queue <queue>',
      'a closed run: the planner task queue of the new run (default: $PLANNER_TASK_QUEUE)',
    )
    .addHelpText(
      'after',
      "\nAn open run (a plan awaiting approval, or a step awaiting a decision) records the re-run as its next plan version.\nA closed run starts a new run with the old run's request, options and plan, linked to it (rerun_of), that charges only the steps it runs again.\nA re-run side-effecting step gets a new idempotency key: its effect is meant to happen again.",
    )
    .action(
      action(async (opts, id: string) => {
        const flags = parseArg(RerunFlagsSchema, opts, 'option', 'see `planner rerun --help`');
        const patch = flags.patch ? readPatch(flags.patch) : undefined;
        const out = output(opts);
        const open = await onRun(opts, id, async (client, wid) => {
          const state = await client.state(wid);
          return isTerminal(state.stage) ? null : await client.rerunFrom(wid, flags.from, patch);
        });
        if (open !== null) {
          if (out.json) out.data({ workflowId: id, from: flags.from, result: open });
          else out.line(`${id}: ${terminalSafe(open)}`);
          return;
        }
        await withClient(opts, async (client) => {
          const handle = await client.rerunClosed(
            id,
            { from: flags.from, ...(patch ? { patch } : {}) },
            { workflowId: flags.id, taskQueue: flags.taskQueue },
          );
          const url = client.uiUrl(handle.workflowId, handle.firstExecutionRunId);
          if (out.json)
            out.data({ workflowId: handle.workflowId, rerunOf: id, from: flags.from, webUiUrl: url ?? null });
          else
            out.line(
              `Started ${handle.workflowId}: re-runs ${id} from step ${flags.from}\nWeb UI: ${url ?? '(unknown; set TEMPORAL_UI_URL)'}\nFollow: planner watch ${shellArg(handle.workflowId)}`,
            );
        });
      }),
    );
}
