import { RetentionSchema } from '../../../src/cli/commands/storage';

describe('planner gc --older-than', () => {
  test('takes minutes, hours or days', () => {
    expect(RetentionSchema.parse('30d')).toBe(30 * 86_400_000);
    expect(RetentionSchema.parse('12h')).toBe(12 * 3_600_000);
    expect(RetentionSchema.parse(' 90m ')).toBe(90 * 60_000);
    expect(RetentionSchema.parse('1.5d')).toBe(1.5 * 86_400_000);
  });

  test('refuses a bare number, seconds, less than a minute, or anything else', () => {
    for (const bad of ['30', '5s', '0m', '-1d', '30 days', '', 'd'])
      expect(RetentionSchema.safeParse(bad).success).toBe(false);
  });
});
