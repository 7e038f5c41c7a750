/**
 * LlmAnalyzer: requirements analysis of a goal by an LLM, before planning. Vague goals come back with
 * is_clear=false and a clarifying question with concrete options and a default. Date ranges are the domain
 * resolver's (see temporalReferencesFor), not the model's.
 *
 * The rules have the last word on vagueness both ways, because small models misjudge it: a goal that names no tool,
 * place or date and only asks to see data ("Check the reports") is asked about with the rules' question, without a
 * call; a goal that names something to plan by (a tool, place, name, date, constraint) or is a question of its own
 * ("When is the contract due?") or orders an action no tool does ("Reboot the build server": a plan names it
 * missing, and no answer makes a tool appear) is not asked about, and neither is one the user has already answered
 * about once the rules find it plannable. The model's own question is asked only about a request that is none of
 * these, yet is not vague by the rules ("I'd like a clearer picture of how things are going"), and only when an option
 * names something of the goal or the catalog: a small model copies the prompt's example ("Orders that are overdue")
 * for any goal.
 */
import { effectiveGoal } from '../../domain/request';
import {
  parseRequirementsJson,
  type Clarification,
  type ClarificationLexicon,
  type Requirements,
} from '../../domain/requirements';
import type { ToolSpec } from '../../domain/tool-spec';
import { contentTokens, tokenize } from '../../domain/text';
import { toolTerms } from '../catalog-match';
import { actionsNoToolDoes, analyzeGoalByRules, asksQuestion, isPinned } from './rules-analyzer';
import type { RequirementsAnalysisInput, RequirementsAnalysisResult, RequirementsAnalyzer } from '../types';
import type { ChatModel } from '../../llm/chat';
import type { LlmCallMode } from '../../config';
import { askForJson } from '../../llm/json-conversation';
import { requirementsReplySchema } from '../../llm/reply-schemas';
import { systemPrompt, analyzerUserPrompt } from '../../llm/prompts';
import { temporalReferencesFor } from '../../domain/date-ranges';

export const ANALYSIS_TEMPERATURE = 0;
/** Requirements take a few hundred tokens at most; more is a model repeating itself. */
export const ANALYSIS_REPLY_MAX_TOKENS = 512;

/** Whether some option of `question` shares a word with the goal or with what a catalog tool is known by. */
function namesGoalOrCatalog(question: Clarification, goal: string, catalog: readonly ToolSpec[]): boolean {
  const known = new Set([
    ...contentTokens(tokenize(goal)).map((t) => t.stem),
    ...catalog.flatMap((tool) => [...toolTerms(tool).vocabulary]),
  ]);
  return question.options.some((option) => contentTokens(tokenize(option)).some((t) => known.has(t.stem)));
}

/**
 * The model's clarity unless the rules overrule it: `rulesQuestion` when they find the goal vague; clear when they
 * find a goal plannable that the user has answered about or that says what it wants (`specific`: it names something
 * to plan by, is a question or orders an action no tool does), or when the model's question names nothing of the
 * goal or the catalog (`grounded` false).
 */
function clarityOf(
  answer: Requirements,
  rulesQuestion: Clarification | null,
  overrule: { answered: boolean; specific: boolean; grounded: boolean },
): Pick<Requirements, 'is_clear' | 'clarification'> {
  if (answer.is_clear && rulesQuestion) return { is_clear: false, clarification: rulesQuestion };
  if (!answer.is_clear && !rulesQuestion && (overrule.answered || overrule.specific || !overrule.grounded))
    return { is_clear: true, clarification: null };
  return { is_clear: answer.is_clear, clarification: answer.clarification };
}

/**
 * Why the rules' requirements are enough without the model, or undefined. Only a first request (no conversation
 * yet) qualifies, and then: a goal the rules find vague (their question is asked whatever the model says); or a clear
 * goal that names something to plan by, each capability of which is a tool of the catalog or an action no tool does
 * ("Order 50 new bins": what a plan names as missing). A capability that is a question or a request for data no tool
 * matched ("What is the travel budget?") goes to the model, which may find the tools that answer it.
 */
export function rulesSuffice(rules: Requirements, { request, catalog }: RequirementsAnalysisInput): string | undefined {
  if (request.context.length > 0) return undefined;
  if (!rules.is_clear)
    return 'the rules find the goal too vague to plan: their question is asked, no LLM analysis call';
  if (!isPinned(effectiveGoal(request), catalog, request.now)) return undefined;
  const tools = new Set(catalog.map((t) => t.name));
  const needs = rules.required_capabilities;
  const missing = actionsNoToolDoes(rules, catalog);
  if (needs.length === 0 || needs.some((c) => !tools.has(c) && !missing.includes(c))) return undefined;
  const of = [...needs.filter((c) => tools.has(c)), ...missing.map((c) => `"${c}", which no tool does`)].join(', ');
  return `the rules analysed the goal alone (${of}): no LLM analysis call`;
}

export class LlmAnalyzer implements RequirementsAnalyzer {
  readonly kind = 'llm';

  private readonly lexiconOf: (catalog: string) => ClarificationLexicon;
  private readonly calls: LlmCallMode;

  /**
   * `lexiconOf`: the clarification lexicon registered with a catalog (by the request's tool_catalog name); `calls`:
   * `always` asks the model even where the rules suffice (PLANNER_LLM_ANALYSIS), `auto` (default) only where not.
   */
  constructor(
    private readonly client: ChatModel,
    options: { lexiconOf?: (catalog: string) => ClarificationLexicon; calls?: LlmCallMode } = {},
  ) {
    this.lexiconOf = options.lexiconOf ?? (() => ({}));
    this.calls = options.calls ?? 'auto';
  }

  async analyze(input: RequirementsAnalysisInput): Promise<RequirementsAnalysisResult> {
    const { request, catalog, llm } = input;
    const rules = analyzeGoalByRules(input, this.lexiconOf(request.tool_catalog));
    if (this.calls === 'auto') {
      const note = rulesSuffice(rules, input);
      if (note) return { requirements: rules, llm_calls: [], note };
    }
    // The user's answers in the conversation count too: "last week" may come as the answer to a clarification.
    const goal = effectiveGoal(request);
    const resolved = temporalReferencesFor(goal, request.now);
    const rulesQuestion = rules.clarification;
    const answered = request.context.some((m) => m.role === 'user');
    const specific =
      isPinned(goal, catalog, request.now) || asksQuestion(goal) || actionsNoToolDoes(rules, catalog).length > 0;
    const {
      value: requirements,
      llm_calls,
      transcript,
    } = await askForJson(this.client, {
      messages: [
        { role: 'system', content: systemPrompt(catalog) },
        { role: 'user', content: analyzerUserPrompt(request, resolved) },
      ],
      temperature: ANALYSIS_TEMPERATURE,
      maxTokens: ANALYSIS_REPLY_MAX_TOKENS,
      schema: requirementsReplySchema(),
      ...(llm ? { settings: llm } : {}),
      parse: (text): Requirements => {
        const answer = parseRequirementsJson(text);
        const temporal_references = temporalReferencesFor(goal, request.now, answer.temporal_references);
        const has_temporal_filter = answer.complexity_indicators.has_temporal_filter || temporal_references.length > 0;
        // A small model may write the same requirement step many times; the planner would copy each one.
        const steps = [...new Set(answer.steps)];
        const grounded = answer.clarification !== null && namesGoalOrCatalog(answer.clarification, goal, catalog);
        return {
          ...answer,
          ...clarityOf(answer, rulesQuestion, { answered, specific, grounded }),
          steps,
          temporal_references,
          complexity_indicators: { ...answer.complexity_indicators, has_temporal_filter },
        };
      },
    });
    return { requirements, llm_calls, transcript };
  }
}
