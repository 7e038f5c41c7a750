/**
 * LlmAnalyzer: requirements analysis of a goal by an LLM, before planning. Vague goals come back with
 * is_clear=false and a clarifying question with concrete options and a default. Date ranges are the domain
 * resolver's (see temporalReferencesFor), not the model's.
 */
import { effectiveGoal } from '../../domain/request';
import { parseRequirementsJson, type Requirements } from '../../domain/requirements';
import type { RequirementsAnalysisInput, RequirementsAnalysisResult, RequirementsAnalyzer } from '../types';
import type { ChatModel } from '../../llm/chat';
import { askForJson } from '../../llm/json-conversation';
import { requirementsReplySchema } from '../../llm/reply-schemas';
import { analyzerSystemPrompt, analyzerUserPrompt } from '../../llm/prompts';
import { temporalReferencesFor } from '../../domain/date-ranges';

export const ANALYSIS_TEMPERATURE = 0;

export class LlmAnalyzer implements RequirementsAnalyzer {
  readonly kind = 'llm';

  constructor(private readonly client: ChatModel) {}

  async analyze({ request, catalog, llm }: RequirementsAnalysisInput): Promise<RequirementsAnalysisResult> {
    // The user's answers in the conversation count too: "last week" may come as the answer to a clarification.
    const goal = effectiveGoal(request);
    const resolved = temporalReferencesFor(goal, request.now);
    const { value: requirements, llm_calls, transcript } = await askForJson(this.client, {
      messages: [
        { role: 'system', content: analyzerSystemPrompt(catalog) },
        { role: 'user', content: analyzerUserPrompt(request, resolved) },
      ],
      temperature: ANALYSIS_TEMPERATURE,
      schema: requirementsReplySchema(),
      ...(llm ? { settings: llm } : {}),
      parse: (text): Requirements => {
        const answer = parseRequirementsJson(text);
        const temporal_references = temporalReferencesFor(goal, request.now, answer.temporal_references);
        const has_temporal_filter = answer.complexity_indicators.has_temporal_filter || temporal_references.length > 0;
        return { ...answer, temporal_references, complexity_indicators: { ...answer.complexity_indicators, has_temporal_filter } };
      },
    });
    return { requirements, llm_calls, transcript };
  }
}
