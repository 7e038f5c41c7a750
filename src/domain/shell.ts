/**
 * Command lines the planner suggests (CLI hints and prompts, the Web UI's details) name run-provided values: a
 * workflow id a client chose, a step id. Each is quoted for a POSIX shell, so a pasted command gets the value as one
 * argument and runs nothing else (`planner answer 'q2;touch pwned'`).
 */

/** Characters no POSIX shell (nor zsh, whose `=word` and `~` expand) treats specially anywhere in a word. */
const PLAIN = /^[A-Za-z0-9_.,:/@%+-]+$/;

/** `arg` as one shell word: as it is when every character is plain, else in single quotes (a `'` as `'\''`). */
export function shellQuote(arg: string): string {
  return PLAIN.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
