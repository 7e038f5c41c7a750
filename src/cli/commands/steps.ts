/** Commands for a step that waits for a person: complete (a `human` step's answer) and resolve (an unknown outcome). */
import type { Command } from 'commander';
import { CompleteStepSchema, ResolveStepSchema } from '../../api/messages';
import { output, parseArg } from '../context';
import { terminalSafe } from '../safe-text';
import { action, onRun } from './runs';

export function registerStepCommands(program: Command): void {
  program
    .command('complete')
    .description("answer a human step of a run (status WAITING); the answer becomes the step's result")
    .argument('<id>', 'workflow id')
    .argument('<step>', 'step id, as `planner show` prints it (e.g. 2.1)')
    .argument('<answer...>', 'the answer, as text')
    .action(
      action(async (opts, id: string, step: string, words: string[]) => {
        const input = parseArg(
          CompleteStepSchema,
          { step, answer: words.join(' ') },
          'answer',
          'give the step id and the answer text',
        );
        const result = await onRun(opts, id, (client, wid) => client.completeStep(wid, input.step, input.answer));
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, step: input.step, result });
        else out.line(`${id}: ${terminalSafe(result)}`);
      }),
    );

  program
    .command('resolve')
    .description('decide on a step whose outcome is unknown (PLAN-014): retry it, mark it done, or fail it (re-plan)')
    .argument('<id>', 'workflow id')
    .argument('<step>', 'step id, as `planner show` prints it (e.g. 1.1)')
    .argument('<decision>', 'retry (run it again under a fresh idempotency key) | done (it took effect) | fail')
    .argument('[text...]', 'with done: the result text; with fail: why')
    .action(
      action(async (opts, id: string, step: string, decision: string, words: string[]) => {
        const text = words.join(' ').trim();
        const input = parseArg(
          ResolveStepSchema,
          { step, decision, ...(text && decision !== 'retry' ? { text } : {}) },
          'decision',
          'planner resolve <id> <step> retry|done|fail [text]',
        );
        const result = await onRun(opts, id, (client, wid) => client.resolveStep(wid, input));
        const out = output(opts);
        if (out.json) out.data({ workflowId: id, step: input.step, decision: input.decision, result });
        else out.line(`${id}: ${terminalSafe(result)}`);
      }),
    );
}
