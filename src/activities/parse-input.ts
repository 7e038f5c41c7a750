/** An activity's input parsed with its schema; input it cannot read is a typed error naming the activity. */
import type { z } from 'zod';
import { formatZodIssues, InvalidInputError } from '../domain/errors';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, activity: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    `${activity}: invalid input`,
    'The workflow sent input this worker does not understand; check that workflow and worker versions match.',
    { issues: formatZodIssues(parsed.error) },
  );
}
