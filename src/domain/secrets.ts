/**
 * Secret detection and redaction. Plans are stored in workflow history and shown to people, so credentials must
 * never be in them (findSecret: tools get credentials from their worker's environment); every text a person or a
 * model gives a run is redacted before the run keeps it (redactSecrets).
 */
import { identifierWords } from './text';

/** What a redacted secret is replaced with; matches none of the patterns, so redacting twice changes nothing. */
export const REDACTED = '[redacted]';

/**
 * What each kind of secret looks like, and what redaction puts in its place (a URL's password only: its user and
 * host stay readable). Each starts with a fixed prefix, so scanning a text stays linear.
 */
const SECRET_PATTERNS: readonly (readonly [string, RegExp, string?])[] = [
  ['an API key (sk-...)', /\bsk-[A-Za-z0-9_-]{16,}/],
  ['a Stripe key', /\b(?:(?:sk|rk)_(?:live|test)|whsec)_[A-Za-z0-9]{10,}/],
  ['a Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/],
  ['a Google API key', /\bAIza[A-Za-z0-9_-]{30,}/],
  ['a JSON Web Token', /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ['a GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})/],
  ['an AWS access key id', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['a bearer token', /\bBearer\s+[\w.~+/-]{12,}=*/i],
  ['a private key block', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  // user:password@ after a URL's "://" (postgres://app:s3cret@db): only the password part is the secret.
  ['a password in a URL', /(:\/\/[^\s:/?#@]+:)(?!\[redacted\]@)[^\s/?#@]+@/, `$1${REDACTED}@`],
];

const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'credential',
  'credentials',
]);
const KEY_QUALIFIERS = new Set(['api', 'access', 'private', 'secret']);

/** A whole `${...}` placeholder refers to a value held elsewhere, so it is not a literal secret. */
const PLACEHOLDER = /^\$\{[^}]+\}$/;

function isSecretName(key: string): boolean {
  const words = identifierWords(key);
  const last = words[words.length - 1];
  if (last === undefined) return false;
  return SECRET_WORDS.has(last) || (last === 'key' && words.some((w) => KEY_QUALIFIERS.has(w)));
}

/**
 * What kind of secret `value` (a string param, under `key`) looks like, or null. Describes the secret without
 * repeating it, so the result is safe to log.
 */
export function findSecret(key: string | undefined, value: string): string | null {
  for (const [kind, pattern] of SECRET_PATTERNS) if (pattern.test(value)) return kind;
  if (key !== undefined && isSecretName(key) && value.trim() !== '' && !PLACEHOLDER.test(value)) {
    return `a literal value for the credential param "${key}"`;
  }
  return null;
}

const REDACT_PATTERNS: readonly (readonly [RegExp, string])[] = [
  ...SECRET_PATTERNS.map(
    ([, pattern, replacement = REDACTED]) =>
      [new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`), replacement] as const,
  ),
  // A credential written as name=value or name: value ("password=hunter2", "api_key: abc").
  [
    /\b((?:pass(?:word|wd|phrase)|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)\s*[=:]\s*)(?!\[redacted\])("[^"]*"|'[^']*'|[^\s,;]+)/gi,
    `$1${REDACTED}`,
  ],
];

/**
 * `text` with every secret the patterns above recognise replaced by `[redacted]`. The one redaction of every text a
 * person or a model gives a run: the goal and context where a request is parsed, clarification answers, approve
 * comments and reject reasons, step answers and decisions, and `llm` steps' answers; so memo, search attributes,
 * activity summaries, audit, logs and LLM prompts never repeat a credential. Linear in the text (no nested
 * quantifiers); redacting twice changes nothing.
 */
export function redactSecrets(text: string): string {
  return REDACT_PATTERNS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}
