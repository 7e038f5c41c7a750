/**
 * Where Temporal is: Temporal's own environment configuration (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TLS settings, TEMPORAL_PROFILE and the TOML config file) via @temporalio/envconfig, read from the
 * environment src/config.ts loaded, plus TEMPORAL_UI_URL for the links we print.
 */
import { Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { temporal } from '@temporalio/proto';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { PLANNER_SEARCH_ATTRIBUTES } from './api/search-attributes';
import { loadConfig, type TemporalSettings } from './config';

export interface TemporalTarget {
  address: string;
  namespace: string;
  connectionOptions: NativeConnectionOptions;
  /** Base URL of a Web UI that shows this namespace, when one is known. */
  webUiUrl?: string;
}

const DEFAULT_ADDRESS = 'localhost:7233';

function guessWebUiUrl(address: string): string | undefined {
  const [host, port] = address.split(':');
  if (['localhost', '127.0.0.1', '::1'].includes(host)) return `http://localhost:${Number(port ?? 7233) + 1000}`;
  // Temporal Cloud: the namespace endpoint (mTLS) or a regional endpoint (API keys), e.g. us-east-1.aws.api.temporal.io.
  if (host.endsWith('.tmprl.cloud') || host.endsWith('.api.temporal.io')) return 'https://cloud.temporal.io';
  return undefined;
}

/** Where to connect: Temporal's environment configuration (default: this process's, via the config module). */
export function loadTemporalTarget(
  settings: TemporalSettings = loadConfig().temporal,
  overrides: { address?: string; namespace?: string } = {},
): TemporalTarget {
  const { connectionOptions, namespace } = loadClientConnectConfig({ overrideEnvVars: settings.env });
  const address = overrides.address ?? connectionOptions.address ?? DEFAULT_ADDRESS;
  return {
    address,
    namespace: overrides.namespace ?? namespace ?? 'default',
    connectionOptions: { ...connectionOptions, address },
    webUiUrl: settings.uiUrl ?? guessWebUiUrl(address),
  };
}

/** Link to a run in the Web UI, e.g. http://localhost:8233/namespaces/default/workflows/<id>/<run>/history. */
export function workflowUiUrl(target: TemporalTarget, workflowId: string, runId?: string): string | undefined {
  if (!target.webUiUrl) return undefined;
  const run = runId ? `/${encodeURIComponent(runId)}/history` : '';
  return `${target.webUiUrl}/namespaces/${encodeURIComponent(target.namespace)}/workflows/${encodeURIComponent(workflowId)}${run}`;
}

/**
 * Registers the planner's search attributes that the namespace lacks. Servers that refuse (Temporal Cloud manages
 * them in its own console) get a warning instead of a crash.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  warn: (line: string) => void = console.warn,
): Promise<void> {
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = PLANNER_SEARCH_ATTRIBUTES.filter((key) => !(key.name in (customAttributes ?? {})));
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`]]),
      ),
    });
  } catch (err) {
    warn(
      `Could not register search attributes ${PLANNER_SEARCH_ATTRIBUTES.map((k) => k.name).join(', ')} ` +
        `in namespace ${namespace}: ${(err as Error).message}. Register them with ` +
        '`temporal operator search-attribute create`, or on Temporal Cloud with `tcld namespace search-attributes add` ' +
        '(or in its console; see docs/deployment.md#temporal-cloud), to filter runs by them.',
    );
  }
}
