/**
 * A small, honest glob matcher for workspace-relative POSIX paths (no Node `path.matchesGlob`, which is experimental
 * in Node 20). Supported: `**` as a whole segment (zero or more path segments), `*` (any characters except "/"),
 * `?` (one character except "/"). Everything else is literal: no character classes, braces or negation. Patterns
 * are anchored at the workspace root ("*.ts" matches "a.ts" but not "src/a.ts"; write "**\/*.ts" for that), and
 * `*` also matches names starting with a dot.
 */

export interface CompiledGlob {
  pattern: string;
  matches(path: string): boolean;
}

type Segment = { kind: 'globstar' } | { kind: 'segment'; re: RegExp };

function segmentRegExp(segment: string): RegExp {
  let source = '';
  for (const ch of segment) {
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '' && s !== '.');
}

/** Compiles `pattern` once; `matches` takes a workspace-relative POSIX path ("src/a.ts"). */
export function compileGlob(pattern: string): CompiledGlob {
  const segments: Segment[] = [];
  for (const s of splitPath(pattern)) {
    // Consecutive "**" are one "**".
    if (s === '**') {
      if (segments[segments.length - 1]?.kind !== 'globstar') segments.push({ kind: 'globstar' });
    } else segments.push({ kind: 'segment', re: segmentRegExp(s) });
  }
  return {
    pattern,
    matches(path: string): boolean {
      const parts = splitPath(path);
      // memo[i][j]: segments from i match parts from j (dynamic programming keeps "**/a/**/b" linear-ish).
      const memo = new Map<number, boolean>();
      const match = (i: number, j: number): boolean => {
        const key = i * (parts.length + 1) + j;
        const known = memo.get(key);
        if (known !== undefined) return known;
        let result: boolean;
        if (i === segments.length) result = j === parts.length;
        else {
          const seg = segments[i]!;
          if (seg.kind === 'globstar') result = match(i + 1, j) || (j < parts.length && match(i, j + 1));
          else result = j < parts.length && seg.re.test(parts[j]!) && match(i + 1, j + 1);
        }
        memo.set(key, result);
        return result;
      };
      return match(0, 0);
    },
  };
}

/** One-off match of a workspace-relative path against a glob. */
export function matchesGlob(path: string, pattern: string): boolean {
  return compileGlob(pattern).matches(path);
}
