import { connectClient, startTestWorker, uniqueTaskQueue } from '../support/temporal';

describe('planningWorkflow on the real dev server', () => {
  test('runs a goal through its activity and returns the drafted plan', async () => {
    const taskQueue = uniqueTaskQueue('planning');
    const worker = await startTestWorker(taskQueue);
    const client = await connectClient();
    try {
      const result = await client.workflow.execute('planningWorkflow', {
        taskQueue,
        workflowId: `planning-${taskQueue}`,
        args: [{ goal: 'Fetch the shipments and then list their facilities' }],
      });
      expect(result).toEqual({
        goal: 'Fetch the shipments and then list their facilities',
        steps: ['Fetch the shipments', 'list their facilities'],
      });
    } finally {
      await worker.stop();
      await client.connection.close();
    }
  });
});
