/** redactSecrets and findSecret: the common credential formats, recognised wherever they appear in a text. */
import { REDACTED, findSecret, redactSecrets } from '../../../src/domain/secrets';

const FORMATS: [string, string][] = [
  ['an OpenAI-style key', 'sk-proj0123456789abcdefghij'],
  ['a Stripe secret key', 'sk_live_51HabcdefghijklmnopQRST'],
  ['a Stripe restricted test key', 'rk_test_51Habcdefghijklmnop'],
  ['a Slack bot token', 'xoxb-1234567890-abcdefghijKLMN'],
  ['a JSON Web Token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ['a Google API key', 'AIzaSyA1234567890abcdefghijklmnopqrstu'],
  ['a GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123'],
  ['an AWS access key id', 'AKIAABCDEFGHIJKLMNOP'],
];

describe('redactSecrets', () => {
  it.each(FORMATS)('replaces %s in running text, and leaves the words around it', (_kind, secret) => {
    expect(redactSecrets(`use ${secret}, then stop`)).toBe(`use ${REDACTED}, then stop`);
  });

  it("keeps a URL's scheme, user and host and replaces only its password", () => {
    expect(redactSecrets('read postgres://app:s3cret-Pw@db.internal:5432/ops now')).toBe(
      `read postgres://app:${REDACTED}@db.internal:5432/ops now`,
    );
    expect(redactSecrets('mongodb+srv://u:p%40ss@cluster0/x')).toBe(`mongodb+srv://u:${REDACTED}@cluster0/x`);
  });

  it('leaves URLs without a password, ports and plain words alone', () => {
    for (const text of [
      'https://example.com:8080/a@b',
      'ssh://git@github.com/x',
      'mail me at ops@example.com',
      'skip the sk- prefix',
      'eyJ is how JSON starts',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('replaces name=value credentials, keeping the name', () => {
    expect(redactSecrets('password=hunter2 and api_key: "a b c"')).toBe(
      `password=${REDACTED} and api_key: ${REDACTED}`,
    );
  });

  it('changes nothing when applied twice', () => {
    const text = `${FORMATS.map(([, s]) => s).join(' ')} postgres://a:b@h password=x`;
    expect(redactSecrets(redactSecrets(text))).toBe(redactSecrets(text));
  });

  it('stays fast on long texts that almost match', () => {
    const text = `${'://a:'.repeat(20_000)} ${'eyJaaaaaaaaaa.'.repeat(2_000)} ${'a.'.repeat(20_000)}`;
    const started = Date.now();
    redactSecrets(text);
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('findSecret (plan params)', () => {
  it.each(FORMATS)('names %s without repeating it', (_kind, secret) => {
    const found = findSecret('note', `value ${secret}`);
    expect(found).toEqual(expect.any(String));
    expect(found).not.toContain(secret);
  });

  it('flags a URL with a password, but not one whose password is already redacted', () => {
    expect(findSecret('dsn', 'postgres://app:s3cret@db/ops')).toBe('a password in a URL');
    expect(findSecret('dsn', `postgres://app:${REDACTED}@db/ops`)).toBeNull();
  });
});
