/**
 * Which catalog tools a goal talks about, by keyword overlap: a word that matches a tool's name scores 3, one that
 * matches a tag scores 2; a tool needs 3 to be chosen. A word that modifies a tool's noun and names one of its
 * boolean filters ("contaminated shipments" → shipments.has_contaminants) is consumed by that filter and does not
 * select a tool of its own.
 */
import type { JsonSchema } from '../domain/json-schema';
import type { ToolSpec } from '../domain/tool-spec';
import { contentTokens, identifierStems, stem, type Token } from '../domain/words';

export const SELECTION_THRESHOLD = 3;

export interface ToolMatch {
  tool: ToolSpec;
  score: number;
  /** Position of the first word that matched, for ordering. */
  firstPos: number;
}

export interface BooleanModifier {
  tool: string;
  param: string;
  token: Token;
}

export function paramSchemas(tool: ToolSpec): [string, JsonSchema][] {
  return Object.entries(tool.parameters.properties ?? {}).filter(
    (entry): entry is [string, JsonSchema] => typeof entry[1] === 'object',
  );
}

function nameStems(tool: ToolSpec): Set<string> {
  return new Set(identifierStems(tool.name));
}

/** Boolean filters named by a word just before the tool's noun, e.g. "contaminated shipments". */
export function findBooleanModifiers(tokens: readonly Token[], catalog: readonly ToolSpec[]): BooleanModifier[] {
  const out: BooleanModifier[] = [];
  // By position, so each noun looks at its two words before in constant time (linear in the goal, not quadratic).
  const byPos = new Map(tokens.map((t) => [t.pos, t]));
  for (const tool of catalog) {
    const names = nameStems(tool);
    const booleans = paramSchemas(tool).filter(([, s]) => s.type === 'boolean');
    for (const noun of tokens.filter((t) => names.has(t.stem))) {
      for (const [param] of booleans) {
        const stems = new Set(identifierStems(param));
        const modifier = [byPos.get(noun.pos - 2), byPos.get(noun.pos - 1)].find((t) => t !== undefined && stems.has(t.stem));
        if (modifier) out.push({ tool: tool.name, param, token: modifier });
      }
    }
  }
  return out;
}

export function matchTools(tokens: readonly Token[], catalog: readonly ToolSpec[]): ToolMatch[] {
  const consumed = new Set(findBooleanModifiers(tokens, catalog).map((m) => m.token.pos));
  const words = contentTokens(tokens).filter((t) => !consumed.has(t.pos));
  const firstPosOf = new Map<string, number>();
  for (const w of words) if (!firstPosOf.has(w.stem)) firstPosOf.set(w.stem, w.pos);
  const matches: ToolMatch[] = [];
  for (const tool of catalog) {
    const names = nameStems(tool);
    const tags = new Set(tool.tags.map(stem));
    let score = 0;
    let firstPos = Infinity;
    for (const [stemSeen, pos] of firstPosOf) {
      const weight = names.has(stemSeen) ? 3 : tags.has(stemSeen) ? 2 : 0;
      if (weight === 0) continue;
      score += weight;
      firstPos = Math.min(firstPos, pos);
    }
    if (score >= SELECTION_THRESHOLD) matches.push({ tool, score, firstPos });
  }
  return matches.sort((a, b) => a.firstPos - b.firstPos || a.tool.name.localeCompare(b.tool.name));
}
