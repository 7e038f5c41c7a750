/**
 * What a publish needs and what it ships (docs/releasing.md): package.json carries the fields npm and its provenance
 * read, `npm pack --dry-run` (which builds dist/ first, as the release does) lists the compiled code, the bin and the
 * docs and nothing of the tests, the benchmarks or local state, and the release workflow publishes from a v* tag
 * after the whole check.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;

test('package.json has what a public publish with provenance needs', () => {
  expect(manifest.name).toBe('durable-planner');
  expect(manifest.private).not.toBe(true);
  expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(manifest.license).toBe('MIT');
  expect(manifest.description).toEqual(expect.any(String));
  // npm provenance refuses a package whose repository.url is not the repository the workflow ran in.
  expect(manifest.repository).toEqual({
    type: 'git',
    url: expect.stringMatching(/^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/),
  });
  const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  expect(manifest.homepage).toBe(`${repository}#readme`);
  expect(manifest.bugs).toEqual({ url: `${repository}/issues` });
  expect(manifest.publishConfig).toEqual({ access: 'public', provenance: true });
  expect(manifest.bin['durable-planner']).toBe('bin/planner.js');
  expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  expect(manifest.engines.node).toBe('>=20');
  expect(manifest.scripts.prepack).toBe('npm run build');
});

test('`npm pack --dry-run` ships dist/, bin/, docs/, the README and the changelog, and no test, bench or local state', async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json'], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
  });
  const [packed] = JSON.parse(stdout) as [{ name: string; files: { path: string }[] }];
  expect(packed.name).toBe('durable-planner');
  const files = packed.files.map((f) => f.path);
  const top = new Set(files.map((f) => f.split('/')[0]));
  expect([...top].sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'bin', 'dist', 'docs', 'package.json']);
  expect(files).toEqual(
    expect.arrayContaining([
      'bin/planner.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/planner.js',
      'docs/cli.md',
      'docs/releasing.md',
    ]),
  );
  // dist/ is src/ compiled, nothing else: no test, bench or fixture compiled into it, no local state anywhere.
  expect(files.filter((f) => /(^|\/)(test|tests|bench|fixtures|\.planner|\.temporal|node_modules)\//.test(f))).toEqual(
    [],
  );
  expect(files.filter((f) => /\.test\.(js|ts)$/.test(f))).toEqual([]);
  // The bin's checkout route (TypeScript through tsx) finds no src/ in the package: it runs dist/.
  expect(files.some((f) => f.startsWith('src/'))).toBe(false);
}, 180_000);

test('the release workflow publishes with provenance from a v* tag, after checking the tag, the changelog and the whole suite', () => {
  const workflow = parse(readFileSync(path.join(ROOT, '.github/workflows/release.yml'), 'utf8'));
  expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
  expect(workflow.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
  const steps = workflow.jobs.publish.steps as { uses?: string; run?: string; with?: Record<string, unknown> }[];
  const runs = steps.map((s) => s.run ?? '');
  const at = (pattern: RegExp) => runs.findIndex((r) => pattern.test(r));
  expect(steps.find((s) => s.uses?.startsWith('actions/setup-node'))?.with).toMatchObject({
    'registry-url': 'https://registry.npmjs.org',
  });
  expect(at(/GITHUB_REF_NAME" != "v\$version"/)).toBeGreaterThanOrEqual(0);
  expect(at(/CHANGELOG\.md/)).toBeGreaterThanOrEqual(0);
  expect(at(/^\.ci\/run$/)).toBeGreaterThan(at(/CHANGELOG\.md/));
  expect(at(/^npm publish --provenance --access public$/)).toBeGreaterThan(at(/^\.ci\/run$/));
  // The changelog has the section the release job looks for, for the version package.json names.
  const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  expect(changelog).toMatch(/^## Unreleased$/m);
  expect(changelog).toMatch(new RegExp(`^## ${manifest.version.replace(/\./g, '\\.')}$`, 'm'));
});
