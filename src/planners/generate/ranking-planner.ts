/**
 * The deterministic ranking planner: the embedded default when no LLM is configured. It ranks catalog tools by
 * keyword overlap with the goal, links steps whose params take ids another step returns (`${step[N].data.*.id}`),
 * fills params from what the goal says (date ranges, enum values, locations, boolean filters) and a required path
 * from its schema's example, orders the steps as a DAG and trims to max_steps and the budget. Same input → same
 * plan, byte for byte.
 */
import { callUsage, canAfford, createBudget, estimateStepsUsage, type Usage } from '../../domain/budget';
import { PlanSchema, type Plan, type PlanStatus, type Step } from '../../domain/plan';
import { STEP_DURATION_MS, complexityOf } from '../../domain/plan-draft';
import { effectiveGoal } from '../../domain/request';
import type { Requirements } from '../../domain/requirements';
import { pathParamSchemas } from '../../domain/paths';
import { indexCatalog, type ToolSpec } from '../../domain/tool-spec';
import { matchCatalog, matchingEnum, paramSchemas, toolTerms, type BooleanModifier } from '../catalog-match';
import type { PlanGenerationInput, PlanGenerationResult, Planner } from '../types';
import { findLocations, tokenize, type Token } from '../../domain/words';

const DATE_FROM = /^(date_from|from_date|start_date|since)$/;
const DATE_TO = /^(date_to|to_date|end_date|until)$/;
const LOCATION = /^(location|city|place|region)$/;
interface Candidate {
  tool: ToolSpec;
  score: number;
  firstPos: number;
  params: Record<string, unknown>;
  /** Candidates this one takes data from. */
  providers: Candidate[];
  notes: string[];
}

function candidate(tool: ToolSpec, score: number, firstPos: number): Candidate {
  return { tool, score, firstPos, params: {}, providers: [], notes: [] };
}

/**
 * How `provider`'s result feeds one of `consumer`'s params, as a template on a placeholder index: by the provider's
 * name ("shipments" → shipment_ids gets `*.id`, facility_id gets `[0].id`) or by a field of its rows (inspections
 * rows carry shipment_id → shipment_ids gets `*.shipment_id`).
 */
function link(consumer: ToolSpec, provider: ToolSpec): { param: string; path: string } | undefined {
  const { names: providerStems, rowFields } = toolTerms(provider);
  const { idParams } = toolTerms(consumer);
  for (const { param, schema, baseStem } of idParams) {
    if (providerStems.has(baseStem)) return { param, path: schema.type === 'array' ? 'data.*.id' : 'data[0].id' };
  }
  for (const { param, schema, base, many } of idParams) {
    if (many && schema.type === 'array' && rowFields.has(`${base}_id`)) return { param, path: `data.*.${base}_id` };
  }
  return undefined;
}

function dependsOn(c: Candidate, target: Candidate): boolean {
  return c.providers.some((p) => p === target || dependsOn(p, target));
}

/** Earlier-mentioned tools provide for later ones; a later one provides only where no link runs the other way. */
function linkCandidates(candidates: Candidate[]): Map<Candidate, Record<string, Candidate>> {
  const sources = new Map<Candidate, Record<string, Candidate>>(candidates.map((c) => [c, {}]));
  const linkPair = (provider: Candidate, consumer: Candidate) => {
    const found = link(consumer.tool, provider.tool);
    if (!found || found.param in consumer.params || provider.providers.includes(consumer) || dependsOn(provider, consumer)) return;
    consumer.params[found.param] = found.path;
    consumer.providers.push(provider);
    sources.get(consumer)![found.param] = provider;
  };
  // Forward pairs (i < j) before backward ones, each in (provider, consumer) order, by index: a sorted list of the
  // pairs was the ranking planner's largest share of a cold worker's short-lived objects.
  for (let i = 0; i < candidates.length; i++) for (let j = i + 1; j < candidates.length; j++) linkPair(candidates[i]!, candidates[j]!);
  for (let i = 0; i < candidates.length; i++) for (let j = 0; j < i; j++) linkPair(candidates[i]!, candidates[j]!);
  return sources;
}

function fillFilters(candidates: Candidate[], tokens: Token[], modifiers: readonly BooleanModifier[], requirements: Requirements) {
  for (const modifier of modifiers) {
    const c = candidates.find((x) => x.tool.name === modifier.tool);
    if (c) c.params[modifier.param] = true;
  }
  // An enum value named in the goal ("accepted", "high-risk") goes to the nearest chosen tool that takes it.
  const takingEnums = candidates.filter((c) => toolTerms(c.tool).enums.length > 0);
  for (const token of tokens) {
    const options = takingEnums.flatMap((c) =>
      toolTerms(c.tool).enums
        .filter(([p, s]) => !(p in c.params) && matchingEnum(s, token))
        .map(([p, s]) => ({ c, p, value: matchingEnum(s, token)! })),
    );
    options.sort((a, b) => Math.abs(a.c.firstPos - token.pos) - Math.abs(b.c.firstPos - token.pos));
    if (options[0]) options[0].c.params[options[0].p] = options[0].value;
  }
  // The first date range goes to the steps that start the plan, or else to the first step that can take it.
  const range = requirements.temporal_references[0];
  if (!range) return;
  const datable = candidates.filter((c) => paramSchemas(c.tool).some(([p]) => DATE_FROM.test(p)));
  const roots = datable.filter((c) => c.providers.length === 0);
  for (const c of roots.length > 0 ? roots : datable.slice(0, 1)) {
    for (const [p] of paramSchemas(c.tool)) {
      if (DATE_FROM.test(p)) c.params[p] = range.start;
      if (DATE_TO.test(p)) c.params[p] = range.end;
    }
    c.notes.push(`"${range.phrase}" means ${range.start} to ${range.end} (UTC, both days included)`);
  }
}

/**
 * A required path param that nothing else filled takes the first example its schema gives (for an MCP server, the
 * first directory it says it may use: src/tools/mcp/self-description.ts): a step on that folder, which the plan's
 * assumptions name, rather than a step that cannot run.
 */
function fillRequiredPaths(candidates: readonly Candidate[]) {
  for (const c of candidates) {
    for (const { param, path, list } of pathParamSchemas(c.tool.parameters, c.tool.path_params)) {
      const example = Array.isArray(path.examples) ? (path.examples[0] as unknown) : undefined;
      if (list || param in c.params || !c.tool.required.includes(param) || typeof example !== 'string') continue;
      c.params[param] = example;
      c.notes.push(`${c.tool.name}.${param} is ${JSON.stringify(example)}, the first example its schema gives: the goal names no path`);
    }
  }
}

function topologicalOrder(candidates: Candidate[]): Candidate[] {
  const order: Candidate[] = [];
  while (order.length < candidates.length) {
    order.push(candidates.find((c) => !order.includes(c) && c.providers.every((p) => order.includes(p)))!);
  }
  return order;
}

export class RankingPlanner implements Planner {
  readonly kind = 'ranking' as const;

  async generate(input: PlanGenerationInput): Promise<PlanGenerationResult> {
    return { plan: this.plan(input), llm_calls: [] };
  }

  plan({ request, requirements, catalog: fullCatalog, stamp, trim_to_budget: trim = false }: PlanGenerationInput): Plan {
    const allowed = request.constraints.allowed_tools;
    const catalog = allowed ? fullCatalog.filter((t) => allowed.includes(t.name)) : fullCatalog;
    const tools = indexCatalog(catalog);
    const tokens = tokenize(effectiveGoal(request));
    const matched = matchCatalog(tokens, catalog);
    const candidates = matched.tools.map((m) => candidate(m.tool, m.score, m.firstPos));

    // A place no chosen tool can filter by brings in a tool that can ("in Hannover" → facilities).
    const locationParam = (t: ToolSpec) => paramSchemas(t).find(([p]) => LOCATION.test(p))?.[0];
    for (const place of findLocations(tokens)) {
      let holder = candidates.find((c) => locationParam(c.tool));
      if (!holder) {
        const tool = catalog.find((t) => locationParam(t));
        if (!tool) continue;
        holder = candidate(tool, 0, place.pos);
        candidates.push(holder);
      }
      holder.params[locationParam(holder.tool)!] = place.text;
    }
    candidates.sort((a, b) => a.firstPos - b.firstPos || a.tool.name.localeCompare(b.tool.name));

    const sources = linkCandidates(candidates);
    fillFilters(candidates, tokens, matched.modifiers, requirements);
    fillRequiredPaths(candidates);

    // Respect max_steps (and the budget when asked to trim to it): drop the weakest step no other step needs, until
    // the plan fits. Without trim_to_budget a plan over budget stays whole; the run pauses before executing it.
    const budget = createBudget(request.budget);
    const usageOf = (cs: Candidate[]): Usage =>
      estimateStepsUsage(cs.map((c) => ({ action: 'tool_call' as const, tool: c.tool.name })), tools, callUsage(0, 0));
    let kept = topologicalOrder(candidates);
    const dropped: string[] = [];
    while (kept.length > 0 && (kept.length > request.constraints.max_steps || (trim && !canAfford(budget, usageOf(kept))))) {
      const leaves = kept.filter((c) => !kept.some((other) => other.providers.includes(c)));
      const weakest = leaves.sort((a, b) => a.score - b.score || b.firstPos - a.firstPos)[0]!;
      kept = kept.filter((c) => c !== weakest);
      dropped.push(weakest.tool.name);
    }

    const steps: Step[] = kept.map((c, i) => {
      const params: Record<string, unknown> = {};
      for (const key of Object.keys(c.params).sort()) {
        const source = sources.get(c)![key];
        params[key] = source ? `\${step[${kept.indexOf(source)}].${c.params[key]}}` : c.params[key];
      }
      const depends_on = c.providers.map((p) => kept.indexOf(p)).sort((a, b) => a - b);
      const filters = Object.keys(params).filter((k) => !sources.get(c)![k]);
      return {
        id: `1.${i + 1}`,
        title: `Query ${c.tool.name}${depends_on.length ? ` for the results of ${depends_on.map((d) => `step 1.${d + 1}`).join(' and ')}` : ''}`,
        description: `${c.tool.description}${filters.length ? ` Filters: ${filters.map((k) => `${k}=${JSON.stringify(params[k])}`).join(', ')}.` : ''}`,
        action: 'tool_call',
        tool: c.tool.name,
        params,
        depends_on,
        parallel: true,
        expected_output: `Rows from ${c.tool.name}`,
        verification: ['the tool returns a list of rows'],
      };
    });

    const chosen = new Set(steps.map((s) => s.tool));
    const missing = [...new Set([
      // A tool left out for the limits is named once, with why (a bare tool name as missing would contradict the catalog).
      ...requirements.required_capabilities.filter((cap) => !chosen.has(cap) && !dropped.includes(cap)),
      ...dropped.map((name) => `${name} (left out to respect max_steps or the budget)`),
    ])];
    const status: PlanStatus = steps.length === 0 ? 'IMPOSSIBLE' : missing.length > 0 ? 'PARTIAL' : 'FEASIBLE';
    const depth = (s: Step): number => (s.depends_on.length === 0 ? 1 : 1 + Math.max(...s.depends_on.map((d) => depth(steps[d]!))));

    return PlanSchema.parse({
      id: stamp.id,
      version: stamp.version,
      goal: effectiveGoal(request) || request.goal,
      status,
      missing_capabilities: status === 'FEASIBLE' ? [] : missing.length ? missing : [`a tool for: ${request.goal}`],
      tasks: steps.length ? [{ id: '1', title: `Answer: ${request.goal}`, description: 'Query the catalog tools in dependency order.', steps }] : [],
      assumptions: [...new Set(kept.flatMap((c) => c.notes))],
      complexity: complexityOf(steps.length),
      estimate: { ...usageOf(kept), duration_ms: Math.max(0, ...steps.map(depth)) * STEP_DURATION_MS },
      metadata: { planner: 'ranking', model: null, temperature: null, created_at: stamp.created_at },
    });
  }
}
