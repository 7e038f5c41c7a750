/**
 * The typed client for planning runs, used by the CLI and by users' own code.
 */
import { Client, Connection, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { plannerTaskQueue } from './config';
import { loadTemporalTarget, workflowUiUrl, type TemporalTarget } from './temporal-connection';
import { planningWorkflow, type PlanningInput } from './workflows';

export interface StartOptions {
  workflowId?: string;
  taskQueue?: string;
}

export class PlannerClient {
  private constructor(
    readonly client: Client,
    readonly target: TemporalTarget,
  ) {}

  static async connect(target: TemporalTarget = loadTemporalTarget()): Promise<PlannerClient> {
    const connection = await Connection.connect(target.connectionOptions);
    return new PlannerClient(new Client({ connection, namespace: target.namespace }), target);
  }

  async start(input: PlanningInput, options: StartOptions = {}): Promise<WorkflowHandleWithFirstExecutionRunId<typeof planningWorkflow>> {
    return await this.client.workflow.start(planningWorkflow, {
      args: [input],
      taskQueue: options.taskQueue ?? plannerTaskQueue(),
      workflowId: options.workflowId ?? `plan-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    });
  }

  handle(workflowId: string): WorkflowHandle<typeof planningWorkflow> {
    return this.client.workflow.getHandle<typeof planningWorkflow>(workflowId);
  }

  uiUrl(workflowId: string, runId?: string): string | undefined {
    return workflowUiUrl(this.target, workflowId, runId);
  }

  async close(): Promise<void> {
    await this.client.connection.close();
  }
}
