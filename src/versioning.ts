/**
 * Worker Versioning (Temporal's Worker Deployments): every planner worker polls as one version of a deployment,
 * `{ deploymentName, buildId }`, and a planning run is PINNED to the version that started it: it finishes on the
 * code it began on, however many versions are deployed meanwhile, and moves to the current version only when it
 * continues as new (src/workflows/planning.ts). The deployment's current version is where new runs land; a version
 * becomes current when its workers poll and someone sets it (`planner dev` always, `planner worker` when the
 * deployment has none yet, or `temporal worker deployment set-current-version`). docs/contributing.md, "How to ship
 * a workflow change", says how a change is rolled out; docs/configuration.md names the variables.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import type { WorkerDeploymentOptions, WorkerOptions } from '@temporalio/worker';
import { projectRoot } from './project-root';

/** A worker version: the deployment it belongs to and its build id. */
export interface PlannerVersion {
  deploymentName: string;
  buildId: string;
}

/** The package's version (package.json), the first part of every default build id. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The options that make a worker poll as `version`, its workflows pinned to it unless they say otherwise. */
export function workerDeploymentOptions(version: PlannerVersion): WorkerDeploymentOptions {
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' };
}

/**
 * The default build id: `<package version>+<12 hex digits>` of the workflow code the worker runs: the prebuilt bundle
 * when it has one, else the sources the bundle is made of (the workflows, the contract and the domain: all that
 * workflow code may import from this package, see eslint.config.js). Any change to workflow code is a new build id,
 * so a new version; the same code gives the same id on every machine and every restart.
 */
export function defaultBuildId(bundle?: WorkerOptions['workflowBundle']): string {
  const hash = createHash('sha256');
  if (bundle && 'code' in bundle) hash.update(bundle.code);
  else if (bundle && 'codePath' in bundle) hash.update(readFileSync(bundle.codePath));
  else {
    const src = path.dirname(path.dirname(require.resolve('./workflows')));
    for (const dir of ['workflows', 'api', 'domain']) {
      for (const file of filesUnder(path.join(src, dir)))
        hash.update(`${path.relative(src, file)}\0`).update(readFileSync(file));
    }
  }
  return `${packageVersion()}+${hash.digest('hex').slice(0, 12)}`;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) return filesUnder(file);
      return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [file] : [];
    });
}

type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;

/** `always`: new runs land on this version now; `if-none`: only when the deployment has no current version yet. */
export type MakeCurrent = 'always' | 'if-none';

/** The build id of the deployment's current version, or undefined when it has none (or the deployment does not exist yet). */
export async function currentBuildId(
  service: WorkflowService,
  namespace: string,
  deploymentName: string,
): Promise<string | undefined> {
  try {
    const { workerDeploymentInfo } = await service.describeWorkerDeployment({ namespace, deploymentName });
    return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  } catch (err) {
    if ((err as { code?: number }).code === 5) return undefined; // NOT_FOUND: no worker of it has polled yet
    throw err;
  }
}

/**
 * Makes `version` the deployment's current version (`if-none`: only when there is none). The server knows a version
 * once its workers have polled, so this retries until then, for at most `timeoutMs`. Task queues polled by the
 * version that was current and not by this one are left to it (`ignoreMissingTaskQueues`): a planner whose tools
 * moved to other queues can still become current. Returns the build id of the current version then: this one's,
 * or (`if-none`) the one that was current already.
 */
export async function makeVersionCurrent(
  service: WorkflowService,
  namespace: string,
  version: PlannerVersion,
  options: { mode?: MakeCurrent; timeoutMs?: number; identity?: string; signal?: AbortSignal } = {},
): Promise<string | undefined> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) return undefined;
    try {
      const current = await currentBuildId(service, namespace, version.deploymentName);
      if (current === version.buildId || (current !== undefined && options.mode === 'if-none')) return current;
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        ignoreMissingTaskQueues: true,
        identity: options.identity ?? `durable-planner ${version.buildId}`,
      });
      return version.buildId;
    } catch (err) {
      if (Date.now() > deadline || options.signal?.aborted) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 1_000)));
    }
  }
}
