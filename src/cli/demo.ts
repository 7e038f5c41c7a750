/**
 * `npm run demo -- "<goal>"`: runs one planning workflow end to end and prints its result and Web UI link.
 * Without TEMPORAL_ADDRESS it starts (or reuses) a local dev server and runs a worker in this process.
 */
import { PlannerClient } from '../client';
import { loadConfig } from '../config';
import { quietSdkLogs, resolveServer, startWorkers } from './local-stack';

async function main(): Promise<void> {
  const goal = process.argv.slice(2).join(' ').trim();
  if (!goal) {
    console.error('Usage: npm run demo -- "<goal>"\nExample: npm run demo -- "Get contaminated shipments from last week"');
    process.exit(2);
  }

  // The SDK's INFO and WARN lines (bundle sizes, worker states, tool workers without workflows) drown the result.
  quietSdkLogs();
  // TEMPORAL_ADDRESS set: that server; otherwise the local dev server, started or reused (shared with `planner dev`).
  const config = loadConfig();
  const { target, local } = await resolveServer(config, {}, (line) => console.log(line));
  const running = await startWorkers(target, config);
  const workers = running.workers;
  const planner = await PlannerClient.connect(target);
  try {
    const handle = await planner.start({ request: { goal } });
    console.log(`Started ${handle.workflowId} on ${target.address}`);
    const outcome = await workers.runUntil(handle.result().catch((err: Error) => err));
    if (outcome instanceof Error) {
      console.log(`Run failed: ${outcome.cause instanceof Error ? outcome.cause.message : outcome.message}`);
      process.exitCode = 1;
    } else {
      const { spent, limit } = outcome.budget;
      console.log(`${outcome.stage} · plan v${outcome.plan_version} (${outcome.plan_status}) · ${spent.calls}/${limit.calls} calls, ${spent.tokens} tokens, $${spent.cost_usd.toFixed(4)}`);
      for (const step of outcome.steps) {
        console.log(`  ${step.id} ${step.tool} [${step.status}] ${step.items ?? '-'} item(s)  ${(step.preview ?? '').slice(0, 110)}`);
      }
      for (const warning of outcome.warnings) console.log(`  warning: ${warning}`);
    }
    console.log(`Web UI: ${planner.uiUrl(handle.workflowId, handle.firstExecutionRunId) ?? '(no Web UI known; set TEMPORAL_UI_URL)'}`);
    if (local?.started) {
      console.log(`The dev server keeps running (pid ${local.pid}) so the link works; stop it with: npm run dev:stop`);
    }
  } finally {
    await running.close();
    await planner.close();
  }
}

main().catch((err) => {
  console.error(`demo failed: ${(err as Error).message}`);
  process.exit(1);
});
