/**
 * The README and docs/ link to each other: every relative markdown link in README.md, CHANGELOG.md, docs/*.md and bench/README.md
 * must point at a file that exists and, with a #fragment, at a heading of that file (GitHub's anchors).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

const DOCUMENTS = [
  'README.md',
  'CHANGELOG.md',
  'bench/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The lines of a markdown file outside fenced code blocks. */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a markdown file (code spans and fenced blocks left out). */
function relativeLinks(markdown: string): string[] {
  return proseLines(markdown).flatMap((line) => {
    const prose = line.replace(/`[^`]*`/g, '');
    return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
  });
}

test('the docs exist: README.md, bench/README.md and at least six files in docs/', () => {
  expect(DOCUMENTS.filter((doc) => doc.startsWith('docs/')).length).toBeGreaterThanOrEqual(6);
  for (const doc of DOCUMENTS) expect(existsSync(path.join(ROOT, doc))).toBe(true);
});

test.each(DOCUMENTS)('every relative link in %s resolves to a file and, for #anchors, to a heading', (doc) => {
  const markdown = readFileSync(path.join(ROOT, doc), 'utf8');
  const broken = relativeLinks(markdown).flatMap((target) => {
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved =
      file === '' ? path.join(ROOT, doc) : path.resolve(path.dirname(path.join(ROOT, doc)), decodeURI(file));
    if (!existsSync(resolved)) return [`${target}: no file ${path.relative(ROOT, resolved)}`];
    if (anchor === undefined || statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return [];
    return headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)
      ? []
      : [`${target}: no heading #${anchor} in ${path.relative(ROOT, resolved)}`];
  });
  expect(broken).toEqual([]);
});

test('the anchors follow GitHub: punctuation dropped, code kept, repeats numbered', () => {
  const anchors = headingAnchors(
    '# The LLM: settings, local models, and the eval\n## `--json`: the contract\n## Notes\n## Notes\n```\n# not a heading\n```\n',
  );
  expect([...anchors]).toEqual([
    'the-llm-settings-local-models-and-the-eval',
    '--json-the-contract',
    'notes',
    'notes-1',
  ]);
  expect(
    relativeLinks('[a](docs/cli.md#x) `[b](no.md)` [c](https://example.com) [d](#y "title")\n```\n[e](z.md)\n```\n'),
  ).toEqual(['docs/cli.md#x', '#y']);
});
