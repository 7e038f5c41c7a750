/**
 * Secret detection for plan params. Plans are stored in workflow history and shown to people, so credentials must
 * never be in them: tools get credentials from their worker's environment.
 */
import { keyWords } from './walk';

const SECRET_PATTERNS: readonly (readonly [string, RegExp])[] = [
  ['an API key (sk-...)', /\bsk-[A-Za-z0-9_-]{16,}/],
  ['a GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})/],
  ['an AWS access key id', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['a bearer token', /\bBearer\s+[\w.~+/-]{12,}=*/i],
  ['a private key block', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
];

const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'credential', 'credentials']);
const KEY_QUALIFIERS = new Set(['api', 'access', 'private', 'secret']);

/** A whole `${...}` placeholder refers to a value held elsewhere, so it is not a literal secret. */
const PLACEHOLDER = /^\$\{[^}]+\}$/;

function isSecretName(key: string): boolean {
  const words = keyWords(key);
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

/** What a redacted secret is replaced with; matches none of the patterns, so redacting twice changes nothing. */
export const REDACTED = '[redacted]';

const REDACT_PATTERNS: readonly RegExp[] = [
  ...SECRET_PATTERNS.map(([, pattern]) => new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)),
  // A credential written as name=value or name: value ("password=hunter2", "api_key: abc").
  /\b((?:pass(?:word|wd|phrase)|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)\s*[=:]\s*)(?!\[redacted\])("[^"]*"|'[^']*'|[^\s,;]+)/gi,
];

/**
 * `text` with every secret the patterns above recognise replaced by `[redacted]`: applied to the goal and context
 * where a request is parsed, so memo, search attributes, activity summaries, audit, logs and LLM prompts never
 * repeat a credential a client sent. Linear in the text (no nested quantifiers).
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of REDACT_PATTERNS) {
    out = out.replace(pattern, (match: string, name?: string) => (typeof name === 'string' && match.startsWith(name) ? `${name}${REDACTED}` : REDACTED));
  }
  return out;
}
