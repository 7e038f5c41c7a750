import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { InvalidInputError } from '../../../src/domain/errors';
import {
  countTokens,
  createWorkspacePack,
  gatherWorkspaceContext,
  matchesGlob,
  WorkspaceContextParams,
} from '../../../src/tools/workspace';

let root: string;
let outside: string;

async function write(rel: string, content: string, base = root): Promise<void> {
  await fs.mkdir(path.dirname(path.join(base, rel)), { recursive: true });
  await fs.writeFile(path.join(base, rel), content, 'utf8');
}

const filler = (word: string, n: number) =>
  Array.from({ length: n }, (_, i) => `// ${word} line ${i}: nothing relevant here`).join('\n');

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'planner-ws-'));
  outside = await fs.mkdtemp(path.join(os.tmpdir(), 'planner-outside-'));
  await write(
    'src/forms/signup.ts',
    'export function SignupForm(props: { email: string; password: string }) {\n  // TODO: validate the email before submit\n  return props;\n}\n',
  );
  await write('src/utils/strings.ts', `export const trim = (s: string) => s.trim();\n${filler('strings', 40)}\n`);
  await write('src/server/db.ts', `export const connect = () => null;\n${filler('db', 60)}\n`);
  await write('README.md', '# Demo app\n\nA tiny web app.\n');
  await write('node_modules/left-pad/index.js', 'module.exports = (s) => s; // email validation signup form\n');
  await write('package-lock.json', '{"email": "signup form validation"}\n');
  await write('dist/signup.js', 'exports.signup = 1; // email validation\n');
  await fs.writeFile(path.join(root, 'logo.dat'), Buffer.from([0, 1, 2, 3]));
  await write('secret.txt', 'TOP SECRET email signup form validation\n', outside);
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(outside, { recursive: true, force: true });
});

describe('matchesGlob', () => {
  test.each([
    ['src/a.ts', 'src/*.ts', true],
    ['src/x/a.ts', 'src/*.ts', false],
    ['src/x/a.ts', 'src/**/*.ts', true],
    ['src/a.ts', 'src/**/*.ts', true],
    ['a.ts', '**/*.ts', true],
    ['a/b/c/node_modules/x/y.js', '**/node_modules/**', true],
    ['src/nodemodules/y.js', '**/node_modules/**', false],
    ['src/a.ts', '*.ts', false],
    ['src/ab.ts', 'src/a?.ts', true],
    ['src/abc.ts', 'src/a?.ts', false],
    ['src/a+b(1).ts', 'src/a+b(1).ts', true],
    ['.env', '*', true],
    ['src/a.ts', '**', true],
  ])('%s vs %s → %s', (p, g, expected) => {
    expect(matchesGlob(p, g)).toBe(expected);
  });
});

describe('gatherWorkspaceContext', () => {
  test('counts tokens exactly as js-tiktoken o200k_base does', () => {
    const s = 'Add email validation to the signup form — naïve café 🚀 <|endoftext|>';
    expect(countTokens(s)).toBe(getEncoding('o200k_base').encode(s, [], []).length);
    expect(countTokens('hello world')).toBe(2);
  });

  test('ranks the file that matches the goal first and includes everything with a big budget', async () => {
    const ctx = await gatherWorkspaceContext({
      root,
      goal: 'Add email validation to the signup form',
      max_context_tokens: 50_000,
    });
    expect(ctx.files[0]!.path).toBe('src/forms/signup.ts');
    expect(ctx.files[0]!.score).toBeGreaterThan(ctx.files[1]!.score);
    expect(ctx.tokenizer).toBe('o200k_base');
    expect(ctx.budget).toBe(50_000);
    expect(ctx.total_tokens).toBe(countTokens(ctx.text));
    const readable = ctx.files.filter((f) => f.path !== 'logo.dat');
    expect(readable.every((f) => f.included === 'full')).toBe(true);
    expect(ctx.files.find((f) => f.path === 'logo.dat')).toMatchObject({
      included: 'omitted',
      reason: expect.stringMatching(/binary/),
    });
    expect(ctx.text.startsWith('=== workspace structure')).toBe(true);
    expect(ctx.text).toContain('=== src/forms/signup.ts ===\nexport function SignupForm');
    expect(ctx.text.indexOf('src/forms/signup.ts ===')).toBeLessThan(ctx.text.indexOf('src/server/db.ts ==='));
    expect(ctx.structure).toBe(
      [
        'src/',
        '  forms/',
        '    signup.ts',
        '  server/',
        '    db.ts',
        '  utils/',
        '    strings.ts',
        'README.md',
        'logo.dat',
      ].join('\n'),
    );
  });

  test('default excludes leave out node_modules, dist, lockfiles and binaries by extension', async () => {
    await write('assets/pic.png', 'not really a png');
    const ctx = await gatherWorkspaceContext({
      root,
      goal: 'signup form email validation',
      max_context_tokens: 50_000,
    });
    const paths = ctx.files.map((f) => f.path);
    expect(paths).not.toContain('node_modules/left-pad/index.js');
    expect(paths).not.toContain('dist/signup.js');
    expect(paths).not.toContain('package-lock.json');
    expect(paths).not.toContain('assets/pic.png');
    expect(ctx.text).not.toContain('left-pad');
  });

  test('a budget smaller than everything keeps whole files, trims one, omits the rest, never exceeding it', async () => {
    const all = await gatherWorkspaceContext({
      root,
      goal: 'email validation for the signup form',
      max_context_tokens: 50_000,
    });
    for (const budget of [60, 120, 250, 400, 700, Math.floor(all.total_tokens * 0.75)]) {
      const ctx = await gatherWorkspaceContext({
        root,
        goal: 'email validation for the signup form',
        max_context_tokens: budget,
      });
      expect(ctx.total_tokens).toBe(countTokens(ctx.text));
      expect(ctx.total_tokens).toBeLessThanOrEqual(budget);
      expect(ctx.files.map((f) => f.path).sort()).toEqual(all.files.map((f) => f.path).sort());
      for (const f of ctx.files) {
        expect(f.reason).not.toBe('');
        if (f.included === 'omitted') expect(f.included_tokens).toBe(0);
        else expect(ctx.text).toContain(`=== ${f.path}`);
      }
      expect(ctx.files.filter((f) => f.included === 'trimmed').length).toBeLessThanOrEqual(1);
    }
    const ctx = await gatherWorkspaceContext({
      root,
      goal: 'email validation for the signup form',
      max_context_tokens: Math.floor(all.total_tokens * 0.5),
    });
    expect(ctx.files[0]).toMatchObject({ path: 'src/forms/signup.ts', included: 'full' });
    expect(ctx.files.some((f) => f.included === 'omitted' && /budget exhausted/.test(f.reason))).toBe(true);
    const trimmed = ctx.files.find((f) => f.included === 'trimmed');
    expect(trimmed).toBeDefined();
    expect(ctx.text).toMatch(/… trimmed \d+ tokens\n/);
    expect(ctx.text).toContain(`=== ${trimmed!.path} (trimmed) ===`);
  });

  test('the structure itself is capped so that a tiny budget still holds', async () => {
    for (let i = 0; i < 60; i++) await write(`src/gen/file-${i}.ts`, `export const v${i} = ${i};\n`);
    const ctx = await gatherWorkspaceContext({ root, goal: 'signup', max_context_tokens: 80 });
    expect(ctx.total_tokens).toBeLessThanOrEqual(80);
    expect(ctx.structure).toMatch(/… \d+ more lines$/);
    expect(countTokens(ctx.structure)).toBeLessThanOrEqual(40);
  });

  test('include and exclude globs select the files', async () => {
    const ctx = await gatherWorkspaceContext({
      root,
      goal: 'signup email',
      include: ['src/**/*.ts'],
      exclude: ['src/server/**', '**/strings.ts'],
      max_context_tokens: 10_000,
    });
    expect(ctx.files.map((f) => f.path)).toEqual(['src/forms/signup.ts']);
    expect(ctx.structure).toBe('src/\n  forms/\n    signup.ts');
  });

  test('an explicit exclude replaces the defaults; an absolute include inside the root is made relative', async () => {
    const ctx = await gatherWorkspaceContext({
      root,
      goal: 'pad',
      include: [path.join(root, 'node_modules/**')],
      exclude: [],
      max_context_tokens: 10_000,
    });
    expect(ctx.files.map((f) => f.path)).toEqual(['node_modules/left-pad/index.js']);
  });

  test.each([['../etc/**'], ['src/../../x/**'], ['/etc/**'], ['~/secrets/**']])(
    'include %s is rejected with PLAN-006',
    async (pattern) => {
      const run = gatherWorkspaceContext({ root, goal: 'x', include: [pattern], max_context_tokens: 1000 });
      await expect(run).rejects.toBeInstanceOf(InvalidInputError);
      await expect(run).rejects.toMatchObject({
        code: 'PLAN-006',
        hint: expect.stringMatching(/relative to the workspace root/),
      });
    },
  );

  test('an outside absolute exclude is rejected too, and so is a relative or missing root', async () => {
    await expect(
      gatherWorkspaceContext({ root, goal: 'x', exclude: [outside], max_context_tokens: 1000 }),
    ).rejects.toMatchObject({ code: 'PLAN-006' });
    await expect(
      gatherWorkspaceContext({ root: 'relative/dir', goal: 'x', max_context_tokens: 1000 }),
    ).rejects.toMatchObject({
      code: 'PLAN-006',
      hint: expect.stringMatching(/absolute/),
    });
    await expect(
      gatherWorkspaceContext({ root: path.join(root, 'nope'), goal: 'x', max_context_tokens: 1000 }),
    ).rejects.toMatchObject({ code: 'PLAN-006' });
    await expect(gatherWorkspaceContext({ root, goal: 'x', max_context_tokens: 0 })).rejects.toMatchObject({
      code: 'PLAN-006',
    });
  });

  test('symlinks out of the root are skipped and recorded; symlinks inside are read; linked folders are not followed', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'src/forms/signup-secret.txt'));
    await fs.symlink(outside, path.join(root, 'outside-dir'));
    await fs.symlink(path.join(root, 'README.md'), path.join(root, 'readme-link.md'));
    const ctx = await gatherWorkspaceContext({
      root,
      goal: 'signup form email validation secret',
      max_context_tokens: 50_000,
    });
    expect(ctx.text).not.toContain('TOP SECRET');
    expect(ctx.files.find((f) => f.path === 'src/forms/signup-secret.txt')).toMatchObject({
      included: 'omitted',
      reason: expect.stringMatching(/outside the workspace/),
    });
    expect(ctx.structure).not.toContain('signup-secret.txt');
    expect(ctx.files.map((f) => f.path)).not.toContain('outside-dir/secret.txt');
    expect(ctx.files.find((f) => f.path === 'readme-link.md')).toMatchObject({ included: 'full' });
  });

  test('is deterministic', async () => {
    const a = await gatherWorkspaceContext({ root, goal: 'email validation signup', max_context_tokens: 300 });
    const b = await gatherWorkspaceContext({ root, goal: 'email validation signup', max_context_tokens: 300 });
    expect(b).toEqual(a);
  });
});

describe('workspace pack', () => {
  test('serves workspace-context on its own queue, idempotent, returning data that matches its result schema', async () => {
    const pack = createWorkspacePack(root);
    expect(pack.catalog).toBe('workspace');
    const tool = pack.tools[0]!;
    expect(tool.spec).toMatchObject({
      name: 'workspace-context',
      task_queue: 'durable-planner-tools-workspace',
      idempotent: true,
    });
    expect(tool.spec.required.sort()).toEqual(['goal', 'max_context_tokens']);
    const params = tool.paramsSchema.parse({
      goal: 'Add email validation to the signup form',
      max_context_tokens: 2000,
    });
    const out = await tool.run(params, {
      idempotencyKey: 'k',
      heartbeat: () => {},
      signal: new AbortController().signal,
    });
    expect(() => tool.resultSchema!.parse(out.data)).not.toThrow();
    const data = out.data as { files: { path: string }[]; total_tokens: number };
    expect(data.files[0]!.path).toBe('src/forms/signup.ts');
    expect(data.total_tokens).toBeLessThanOrEqual(2000);
    expect(WorkspaceContextParams.safeParse({ goal: 'x', max_context_tokens: 0 }).success).toBe(false);
    await pack.close();
  });
});
