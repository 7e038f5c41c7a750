/**
 * Requirements: the analysis of a goal before planning. Requirement steps are abstract (values removed, services
 * named: "Fetch filtered issues from GitHub"); when the goal is unclear a clarifying question with concrete options
 * is asked. `default_option` is a 0-based index into `options` (show it 1-based to humans only).
 */
import { z } from 'zod';
import { TemporalReferenceSchema } from './dates';
import { parseJsonWith } from './plan';

export const INTENTS = ['query', 'question', 'command', 'clarification', 'confirmation'] as const;
export type Intent = (typeof INTENTS)[number];

/** Strict (unknown keys refused, named) for what is recorded; `strip` (unknown keys dropped) for what a model writes. */
type KeyMode = 'strict' | 'strip';
const objectOf = (mode: KeyMode) => (mode === 'strict' ? z.strictObject : z.object);

const clarificationSchema = (mode: KeyMode) =>
  objectOf(mode)({
    question: z.string().min(1),
    options: z.array(z.string().min(1)).min(2),
    default_option: z.number().int().nonnegative(),
  }).refine((c) => c.default_option < c.options.length, {
    path: ['default_option'],
    message: 'must index one of the options (0-based)',
  });
export const ClarificationSchema = clarificationSchema('strict');
export type Clarification = z.output<typeof ClarificationSchema>;

/**
 * Words too generic to plan without a kind ("report": which report?), each with the question the rule analyzer
 * asks and the options it offers. A tool pack contributes the wording of its own domain.
 */
export type ClarificationLexicon = Readonly<Record<string, { question: string; options: readonly string[] }>>;

const requirementsSchema = (mode: KeyMode) =>
  objectOf(mode)({
    is_clear: z.boolean(),
    clarification: clarificationSchema(mode).nullable().default(null),
    steps: z.array(
      z
        .string()
        .min(1)
        .refine((s) => !s.includes('${'), 'must be abstract: no ${...} template variables'),
    ),
    required_capabilities: z.array(z.string()).default([]),
    complexity_indicators: objectOf(mode)({
      estimated_steps: z.number().int().nonnegative(),
      external_services: z.array(z.string()).default([]),
      has_conditionals: z.boolean().default(false),
      has_iteration: z.boolean().default(false),
      has_temporal_filter: z.boolean().default(false),
    }).default({
      estimated_steps: 0,
      external_services: [],
      has_conditionals: false,
      has_iteration: false,
      has_temporal_filter: false,
    }),
    intent: objectOf(mode)({ type: z.enum(INTENTS), confidence: z.number().min(0).max(1) }),
    entities: z.array(objectOf(mode)({ type: z.string().min(1), value: z.string() })).default([]),
    temporal_references: z.array(TemporalReferenceSchema).default([]),
  }).refine((r) => r.is_clear || r.clarification !== null, {
    path: ['clarification'],
    message: 'an unclear goal needs a clarifying question',
  });
export const RequirementsSchema = requirementsSchema('strict');
/** The requirements as a model writes them: a key of its own is dropped, not refused (what is recorded is strict). */
const WrittenRequirementsSchema = requirementsSchema('strip');
export type Requirements = z.output<typeof RequirementsSchema>;

/** Requirements JSON text (```json fences tolerated) → Requirements; throws PlanParseError or PlanSchemaError. */
export function parseRequirementsJson(text: string): Requirements {
  return parseJsonWith(WrittenRequirementsSchema, text, 'requirements');
}
