/**
 * The one place run-provided text (goal, question, options, step titles, previews, failure messages, audit, history)
 * is made safe for a terminal: every control character — C0, DEL, C1 (0x80–0x9f, which some terminals read as
 * ESC [ …) — and the bidirectional overrides are printed as escapes (`\x1b`, `\r`, `\u202e`) instead of being
 * interpreted. A newline (and a tab) survive only where multi-line output is intended (`multiline`).
 */
import { shellQuote } from '../domain/shell';

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function terminalSafe(text: string, options: { multiline?: boolean } = {}): string {
  return String(text).replace(UNSAFE, (c) => {
    if (options.multiline && (c === '\n' || c === '\t')) return c;
    if (NAMED[c]) return NAMED[c]!;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A run-provided value (workflow id, step id) as an argument of a suggested command: shell-quoted, then terminalSafe. */
export function shellArg(value: string): string {
  return terminalSafe(shellQuote(value));
}

/**
 * JSON for `--json`: JSON.stringify already escapes C0 (ESC is `\u001b`) but leaves DEL, C1 and the bidi overrides
 * raw; they are escaped too (`\u009b`), which is the same JSON value.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
