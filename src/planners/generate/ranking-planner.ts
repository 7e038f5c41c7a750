/**
 * The deterministic ranking planner: the embedded default when no LLM is configured. It ranks catalog tools by
 * keyword overlap with the goal, brings in a tool for a constraint no chosen tool can apply ("in Hannover",
 * "each landfill" → facilities), links steps whose params take ids another step returns (`${step[N].data.*.id}`:
 * a step whose id param takes one id runs once per id), binds every constraint of the goal (periods, enum values,
 * places, names, amounts: ../goal-constraints) to the nearest step that can take it, fills a required param from
 * its schema's default (a path from the first example it gives), answers a question no tool is named for by
 * searching stored files for its key words and reading what the search finds (../content-search), orders the steps
 * as a DAG and trims to max_steps and the budget. What it could not bind or fill it says, in assumptions or missing
 * capabilities. Same input → same plan, byte for byte.
 */
import { canAfford, createBudget, estimateStepsUsage, type Usage } from '../../domain/budget';
import { PlanSchema, type Plan, type PlanStatus, type Step } from '../../domain/plan';
import { STEP_DURATION_MS } from '../../domain/plan-draft';
import { planComplexityOf, structureTasks, type LabelledStep, type UngroupedStep } from '../../domain/task-structure';
import { effectiveGoal } from '../../domain/request';
import { pathParamSchemas } from '../../domain/paths';
import { indexCatalog, type ToolSpec } from '../../domain/tool-spec';
import { matchCatalog, paramSchemas, strongMatches, toolTerms } from '../catalog-match';
import type { PlanGenerationInput, PlanGenerationResult, Planner } from '../types';
import { contentTokens, identifierWords, tokenize, type Token } from '../../domain/text';
import { unboundConstraints, type GoalConstraint } from '../../domain/grounding';
import { DATE_FROM, DATE_TO, goalConstraints, idNounPositions, isDateParam, typedValue } from '../goal-constraints';
import { analyzeGoalByRules, asksForData, statesWish } from '../analyze/rules-analyzer';
import type { ClarificationLexicon } from '../../domain/requirements';
import { actionDoneBy, asksNoData, givenTheRequest, providedBy, REQUEST_PARAM } from '../coverage';
import { contentSearch } from '../content-search';
import { asksOnlyForListing, folderListing, isLister } from '../folder-listing';
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
 * name ("shipments" → shipment_ids gets `*.id`; facility_id too, and the step runs once per facility) or by a field
 * of its rows (inspections rows carry shipment_id → shipment_ids gets `*.shipment_id`).
 */
function link(consumer: ToolSpec, provider: ToolSpec): { param: string; path: string } | undefined {
  const { names: providerStems, rowFields } = toolTerms(provider);
  const { idParams } = toolTerms(consumer);
  for (const { param, baseStem } of idParams) {
    if (providerStems.has(baseStem)) return { param, path: 'data.*.id' };
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
    if (
      !found ||
      found.param in consumer.params ||
      provider.providers.includes(consumer) ||
      dependsOn(provider, consumer)
    )
      return;
    consumer.params[found.param] = found.path;
    consumer.providers.push(provider);
    sources.get(consumer)![found.param] = provider;
  };
  // Forward pairs (i < j) before backward ones, each in (provider, consumer) order, by index: a sorted list of the
  // pairs was the ranking planner's largest share of a cold worker's short-lived objects.
  for (let i = 0; i < candidates.length; i++)
    for (let j = i + 1; j < candidates.length; j++) linkPair(candidates[i]!, candidates[j]!);
  for (let i = 0; i < candidates.length; i++) for (let j = 0; j < i; j++) linkPair(candidates[i]!, candidates[j]!);
  return sources;
}

/** `c`'s params, not yet set, that can take `constraint`. */
function takers(c: Candidate, constraint: GoalConstraint): string[] {
  return paramSchemas(c.tool).flatMap(([p]) =>
    constraint.params.includes(`${c.tool.name}.${p}`) && !(p in c.params) ? [p] : [],
  );
}

/** A second step of `c`'s tool with the same params and providers, placed after it: for a second period or value. */
function twinOf(
  c: Candidate,
  candidates: Candidate[],
  sources: Map<Candidate, Record<string, Candidate>>,
  firstPos: number,
): Candidate {
  const copy: Candidate = { ...c, params: { ...c.params }, providers: [...c.providers], notes: [], firstPos };
  sources.set(copy, { ...sources.get(c)! });
  const consumers = candidates.filter((x) => x.providers.includes(c));
  candidates.splice(candidates.indexOf(c) + 1, 0, copy);
  // The steps that read `c`'s data read the copy's too, each in a copy of its own.
  for (const consumer of consumers) {
    const next = twinOf(consumer, candidates, sources, consumer.firstPos);
    next.providers = next.providers.map((p) => (p === c ? copy : p));
    const read = sources.get(next)!;
    for (const param of Object.keys(read)) if (read[param] === c) read[param] = copy;
  }
  return copy;
}

/**
 * Each constraint goes to the nearest step that can take it (a second value for a param already given goes into its
 * list, or into a second step of that tool); one period to the first steps with dates of each chain, several each to
 * the nearest step with dates (every period is applied, a second step of the same tool if need be).
 */
function bindConstraints(
  candidates: Candidate[],
  constraints: readonly GoalConstraint[],
  sources: Map<Candidate, Record<string, Candidate>>,
) {
  const nearest = (options: Candidate[], at: number) =>
    options.sort((a, b) => Math.abs(a.firstPos - at) - Math.abs(b.firstPos - at))[0];
  const schemaOf = (c: Candidate, p: string) => paramSchemas(c.tool).find(([name]) => name === p)?.[1];
  const taken: GoalConstraint[] = [];
  for (const k of constraints) {
    if (k.kind === 'period') continue;
    const c = nearest(
      candidates.filter((x) => takers(x, k).length > 0),
      k.at,
    );
    if (c) {
      const p = takers(c, k)[0]!;
      c.params[p] = typedValue(schemaOf(c, p), k.values[0]!);
    } else taken.push(k);
  }
  for (const k of taken) {
    // Taken already by a value the goal gave: a list takes this one too ("shipments SHP-0251 and SHP-0252"), a
    // single value gets a second step of that tool ("facilities in Hannover and Bremen").
    const given = candidates.flatMap((x) =>
      Object.keys(x.params)
        .filter((p) => k.params.includes(`${x.tool.name}.${p}`) && !sources.get(x)?.[p])
        .map((p) => ({ x, p })),
    );
    const list = given.find(({ x, p }) => Array.isArray(x.params[p]));
    if (list) {
      (list.x.params[list.p] as unknown[]).push(...(typedValue(schemaOf(list.x, list.p), k.values[0]!) as unknown[]));
      continue;
    }
    const single =
      k.kind === 'place' || k.kind === 'value' ? given.find(({ x, p }) => typeof x.params[p] === 'string') : undefined;
    if (!single) continue;
    const copy = twinOf(single.x, candidates, sources, k.at);
    copy.params[single.p] = typedValue(schemaOf(copy, single.p), k.values[0]!);
  }
  const periods = constraints.filter((k) => k.kind === 'period');
  const datable = candidates.filter((c) => paramSchemas(c.tool).some(([p]) => DATE_FROM.test(p)));
  const setPeriod = (c: Candidate, k: GoalConstraint) => {
    const [start, end = start] = k.values as [string, string?];
    for (const [p] of paramSchemas(c.tool)) {
      if (DATE_FROM.test(p)) c.params[p] = start;
      if (DATE_TO.test(p)) c.params[p] = end;
    }
    c.notes.push(`"${k.words}" means ${start} to ${end} (UTC, both days included)`);
  };
  if (periods.length === 1) {
    // The first steps with dates of each chain: "shipments to Berlin or Leipzig last week" dates both shipments steps.
    for (const c of datable.filter((x) => !datable.some((d) => d !== x && dependsOn(x, d)))) setPeriod(c, periods[0]!);
    return;
  }
  const dated = (x: Candidate) => paramSchemas(x.tool).some(([p]) => DATE_FROM.test(p) && p in x.params);
  for (const k of periods) {
    const c = nearest(
      datable.filter((x) => !dated(x)),
      k.at,
    );
    if (c) {
      setPeriod(c, k);
      continue;
    }
    // Every step that could take a period has one: this period asks for the nearest one's data a second time
    // ("the contaminants detected last week and those detected this week"), a step of its own.
    const twin = nearest(datable.slice(), k.at);
    if (!twin) continue;
    const copy = twinOf(twin, candidates, sources, k.at);
    for (const p of Object.keys(copy.params)) if (isDateParam(p, {})) delete copy.params[p];
    datable.push(copy);
    setPeriod(copy, k);
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
      c.notes.push(
        `${c.tool.name}.${param} is ${JSON.stringify(example)}, the first example its schema gives: the goal names no path`,
      );
    }
  }
}

/** Required free-text params that take the request in words get the goal itself, and the plan says so. */
function fillRequestParams(candidates: readonly Candidate[], goal: string) {
  for (const c of candidates) {
    for (const [p, schema] of paramSchemas(c.tool)) {
      if (
        !c.tool.required.includes(p) ||
        p in c.params ||
        !REQUEST_PARAM.test(p) ||
        schema.type !== 'string' ||
        schema.enum !== undefined
      )
        continue;
      c.params[p] = goal;
      c.notes.push(`${c.tool.name}.${p} is the goal as the user wrote it`);
    }
  }
}

/** "Query shipments", but "Call read_multiple_files": a name of several words may begin with its own verb, and a title of two verbs reads as a step doing two things. */
function titleVerb(tool: ToolSpec): string {
  return identifierWords(tool.name).length > 1 ? 'Call' : 'Query';
}

/** Words that join separable parts of a goal ("List the shipments of last week and the inspections of them"). */
const PART_JOINS = new Set(['and', 'then', 'also', 'plus']);

/** The goal's parts as token ranges [start, end), split at joining words. */
function goalParts(tokens: readonly Token[]): { start: number; end: number; text: string }[] {
  const parts: { start: number; end: number; text: string }[] = [];
  let start = 0;
  const close = (end: number) => {
    if (end > start)
      parts.push({
        start,
        end,
        text: tokens
          .slice(start, end)
          .map((t) => t.text)
          .join(' '),
      });
  };
  tokens.forEach((t, i) => {
    if (!PART_JOINS.has(t.lower)) return;
    close(i);
    start = i + 1;
  });
  close(tokens.length);
  return parts;
}

/** The title of the part of the goal at token `pos` (a step brought in for no word of the goal: the first part's). */
function partOf(parts: readonly { start: number; end: number; text: string }[], pos: number, goal: string): string {
  const part = parts.find((p) => pos >= p.start && pos < p.end) ?? parts[0];
  const text = part?.text ?? goal;
  return text.charAt(0).toUpperCase() + text.slice(1);
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

  plan({
    request,
    requirements,
    catalog: fullCatalog,
    stamp,
    trim_to_budget: trim = false,
  }: PlanGenerationInput): Plan {
    const allowed = request.constraints.allowed_tools;
    const catalog = allowed ? fullCatalog.filter((t) => allowed.includes(t.name)) : fullCatalog;
    const tools = indexCatalog(catalog);
    const goal = effectiveGoal(request);
    const tokens = tokenize(goal);
    const allConstraints = goalConstraints(goal, request.now, catalog);
    // "facility FAC-04" gives the id: "facility" asks for no facilities lookup.
    const idNouns = idNounPositions(tokens, allConstraints);
    const matches = matchCatalog(
      tokens.filter((t) => !idNouns.has(t.pos)),
      catalog,
    );
    const matched = { ...matches, tools: strongMatches(matches.tools, tokens, catalog) };
    // A tool the goal shares only a weak word with, or names only as the kind of an id it gives, is not asked for:
    // not planned, and not missing either.
    const strong = new Set(matched.tools.map((m) => m.tool));
    const weak = new Set(
      matchCatalog(tokens, catalog)
        .tools.filter((m) => !strong.has(m.tool))
        .map((m) => m.tool.name),
    );
    // A constraint inside an action no tool does ("open a Jira ticket") belongs to that action, named missing.
    const actions = requirements.required_capabilities
      .filter((c) => !tools.has(c) && !asksForData(c))
      .map((c) => c.toLowerCase());
    // Unless a tool that takes it is named in that action by a word of its own ("Gather the code … within 1000
    // tokens": workspace-context is tagged code and takes max_context_tokens).
    const namedIn = (action: string, k: GoalConstraint) =>
      catalog.some((t) => {
        if (!k.params.some((p) => p.startsWith(`${t.name}.`))) return false;
        const { names, tags } = toolTerms(t);
        return tokenize(action).some((w) => names.has(w.stem) || tags.has(w.stem));
      });
    const constraints = allConstraints.filter(
      (k) => k.kind === 'period' || !actions.some((a) => a.includes(k.words.toLowerCase()) && !namedIn(a, k)),
    );
    const candidates = matched.tools.map((m) => candidate(m.tool, m.score, m.firstPos));

    // A constraint no chosen tool can apply brings in a tool that can ("in Hannover", "each landfill" → facilities):
    // a place always ("What is in Hannover?"), another filter where the goal asks for data (it names a tool, or the
    // filter is a value or an amount: "List landfills with …") or names the tool's subject by a tag ("composting
    // sites"); "Order 50 new recycling bins" asks for no data at all.
    const tagged = (tool: ToolSpec) => tokens.some((t) => toolTerms(tool).tags.has(t.stem));
    for (const k of constraints) {
      if (k.kind === 'period' || candidates.some((c) => takers(c, k).length > 0)) continue;
      const tool = catalog.find(
        (t) =>
          !candidates.some((c) => c.tool === t) &&
          k.params.some((p) => p.startsWith(`${t.name}.`)) &&
          (k.kind === 'place' || matched.tools.length > 0 || tagged(t) || (k.kind !== 'name' && asksForData(goal))),
      );
      if (tool) candidates.push(candidate(tool, 0, k.at));
    }
    // A question no tool is named for may be about what stored files say: find them by its key words, then read them.
    // So may a goal whose verb only weakly names a tool that reads ("Read my todo list": read_text_file needs a path the
    // goal does not give): a tool that may be retried freely and needs nothing but where to read.
    const reads = (t: ToolSpec) => {
      const paths = new Set(pathParamSchemas(t.parameters, t.path_params).map((p) => p.param));
      return t.idempotent && t.required.every((p) => paths.has(p));
    };
    // A goal that asks only which files a folder holds lists that folder: no search for files named like its words.
    const listing = candidates.length === 0 ? folderListing(goal, catalog) : undefined;
    if (listing) {
      const lister = candidate(listing.lister, 0, 0);
      Object.assign(lister.params, listing.params);
      lister.notes.push(...listing.notes);
      candidates.push(lister);
    }
    const search =
      candidates.length === 0 && (asksForData(goal) || catalog.some((t) => weak.has(t.name) && reads(t)))
        ? contentSearch(goal, tokens, catalog, request.now)
        : undefined;
    const searchSteps = search ? [candidate(search.searcher, 0, 0), candidate(search.reader, 0, 1)] : [];
    candidates.push(...searchSteps);
    candidates.sort((a, b) => a.firstPos - b.firstPos || a.tool.name.localeCompare(b.tool.name));

    const sources = linkCandidates(candidates);
    if (search) {
      const [searcher, reader] = searchSteps as [Candidate, Candidate];
      Object.assign(searcher.params, search.searchParams);
      searcher.notes.push(...search.notes);
      reader.params[search.readerParam] = search.readerPath;
      reader.providers.push(searcher);
      sources.get(reader)![search.readerParam] = searcher;
    }
    bindConstraints(candidates, constraints, sources);
    fillRequiredPaths(candidates);
    fillRequestParams(candidates, goal);

    // A required param neither the goal nor an earlier step fills takes its schema's default; a step still lacking
    // one cannot run, nor can the steps that read its data.
    const unfilled: string[] = [];
    for (const c of candidates) {
      for (const [p, schema] of paramSchemas(c.tool)) {
        if (!c.tool.required.includes(p) || p in c.params) continue;
        if (schema.default !== undefined) c.params[p] = schema.default;
        else unfilled.push(`${c.tool.name} (needs ${p}, which the goal does not give)`);
      }
    }
    const runnable = (c: Candidate): boolean =>
      c.tool.required.every((p) => p in c.params) && c.providers.every(runnable);
    const usable = candidates.filter(runnable);

    // Respect max_steps (and the budget when asked to trim to it): drop the weakest step no other step needs, until
    // the plan fits. Without trim_to_budget a plan over budget stays whole; the run pauses before executing it.
    const budget = createBudget(request.budget);
    const usageOf = (cs: Candidate[]): Usage =>
      estimateStepsUsage(
        cs.map((c) => ({ action: 'tool_call' as const, tool: c.tool.name })),
        tools,
      );
    let kept = topologicalOrder(usable);
    const dropped: string[] = [];
    while (
      kept.length > 0 &&
      (kept.length > request.constraints.max_steps || (trim && !canAfford(budget, usageOf(kept))))
    ) {
      const leaves = kept.filter((c) => !kept.some((other) => other.providers.includes(c)));
      const weakest = leaves.sort((a, b) => a.score - b.score || b.firstPos - a.firstPos)[0]!;
      kept = kept.filter((c) => c !== weakest);
      dropped.push(weakest.tool.name);
    }

    const parts = goalParts(tokens);
    const labelled: LabelledStep[] = kept.map((c) => {
      const params: Record<string, unknown> = {};
      for (const key of Object.keys(c.params).sort()) {
        const source = sources.get(c)![key];
        params[key] = source ? `\${step[${kept.indexOf(source)}].${c.params[key]}}` : c.params[key];
      }
      const filters = Object.keys(params).filter((k) => !sources.get(c)![k]);
      const step: UngroupedStep = {
        title: `${titleVerb(c.tool)} ${c.tool.name}`,
        description: `${c.tool.description}${filters.length ? ` Filters: ${filters.map((k) => `${k}=${JSON.stringify(params[k])}`).join(', ')}.` : ''}`,
        action: 'tool_call',
        tool: c.tool.name,
        params,
        depends_on: c.providers.map((p) => kept.indexOf(p)).sort((a, b) => a - b),
        parallel: true,
        expected_output: '',
        verification: [],
      };
      return { step, label: partOf(parts, c.firstPos, request.goal) };
    });
    const tasks = structureTasks(labelled, tools).map((task, _, all) => {
      const flat = all.flatMap((t) => t.steps);
      return {
        ...task,
        steps: task.steps.map((s) => ({
          ...s,
          title: `${s.title}${s.depends_on.length ? ` for the results of ${s.depends_on.map((d) => `step ${flat[d]!.id}`).join(' and ')}` : ''}`,
        })),
      };
    });
    const steps: Step[] = tasks.flatMap((t) => t.steps);
    const chosen = new Set(steps.map((s) => s.tool));
    const chosenTools = kept.map((c) => c.tool);
    const takesRequest = givenTheRequest(steps, goal);
    // A clause that only restates what the steps filter on ("… in Hannover and Bremen are recycling plants") asks
    // for nothing more: each of its words is a constraint the plan applies or a word a chosen tool is known by.
    const unbound = new Set(unboundConstraints(steps, constraints));
    const applied = new Set(
      constraints.filter((k) => !unbound.has(k)).flatMap((k) => tokenize(k.words).map((t) => t.stem)),
    );
    const restated = (clause: string) => {
      const words = contentTokens(tokenize(clause));
      return (
        words.length > 0 &&
        words.every((w) => applied.has(w.stem) || chosenTools.some((t) => toolTerms(t).vocabulary.has(w.stem)))
      );
    };
    const missing = [
      ...new Set([
        // A tool left out for the limits or for a param it lacks is named once, with why (a bare tool name as missing
        // would contradict the catalog).
        // A clause asking for data that a chosen tool is about ("List the composting sites": facilities) or that reading
        // the files a content search found answers, or an action whose verb a chosen tool does ("Gather the code":
        // workspace-context gathers), is answered.
        ...requirements.required_capabilities.filter(
          (cap) =>
            !chosen.has(cap) &&
            !weak.has(cap) &&
            !restated(cap) &&
            !(chosenTools.some(isLister) && asksOnlyForListing(cap)) &&
            !(takesRequest && statesWish(cap)) &&
            !dropped.includes(cap) &&
            !candidates.some((c) => c.tool.name === cap && !usable.includes(c)) &&
            (fullCatalog.some((t) => t.name === cap) ||
              !(asksForData(cap)
                ? providedBy(cap, chosenTools) || (search !== undefined && chosen.has(search.reader.name))
                : chosenTools.length > 0 && actionDoneBy(cap, chosenTools))),
        ),
        ...dropped.map((name) => `${name} (left out to respect max_steps or the budget)`),
        ...unfilled,
      ]),
    ];
    // Something is missing, and no clause asks for data or names a tool ("Book a flight to München for the site
    // visit": facilities, for the place): the steps do nothing the goal asks.
    const nothingAsked =
      steps.length > 0 &&
      missing.length > 0 &&
      matchCatalog(tokens, catalog).tools.length === 0 &&
      asksNoData(goal, catalog);
    const status: PlanStatus =
      steps.length === 0 || nothingAsked ? 'IMPOSSIBLE' : missing.length > 0 ? 'PARTIAL' : 'FEASIBLE';
    const depth = (s: Step): number =>
      s.depends_on.length === 0 ? 1 : 1 + Math.max(...s.depends_on.map((d) => depth(steps[d]!)));

    return PlanSchema.parse({
      id: stamp.id,
      version: stamp.version,
      goal: effectiveGoal(request) || request.goal,
      status,
      missing_capabilities: status === 'FEASIBLE' ? [] : missing.length ? missing : [`a tool for: ${request.goal}`],
      tasks: nothingAsked ? [] : tasks,
      assumptions: nothingAsked
        ? [`the steps were dropped: none of their tools (${[...chosen].join(', ')}) does anything the goal asks`]
        : [
            ...new Set(kept.flatMap((c) => c.notes)),
            ...unboundConstraints(steps, constraints).map(
              (k) => `could not apply "${k.words}": no step of this plan takes it (${k.params.slice(0, 3).join(', ')})`,
            ),
          ],
      complexity: planComplexityOf(nothingAsked ? [] : tasks),
      estimate: nothingAsked
        ? { ...usageOf([]), duration_ms: 0 }
        : { ...usageOf(kept), duration_ms: Math.max(0, ...steps.map(depth)) * STEP_DURATION_MS },
      metadata: { planner: 'ranking', model: null, temperature: null, created_at: stamp.created_at },
    });
  }
}

/**
 * The draft a first LLM plan starts from: the ranking planner's plan on the rules' own analysis of the goal, as a run
 * with the ranking planner plans it. An LLM's analysis may name a capability no tool has ("travel_budget" for "What
 * is the travel budget for Q3?"), which the draft would then call missing: a worse start than the rules' own.
 */
export class RulesDraftPlanner implements Planner {
  readonly kind = 'ranking' as const;
  private readonly ranking = new RankingPlanner();

  /** `lexiconOf`: the clarification lexicon of a catalog (by the request's tool_catalog name), as the rules' analyzer takes. */
  constructor(private readonly lexiconOf: (catalog: string) => ClarificationLexicon = () => ({})) {}

  async generate(input: PlanGenerationInput): Promise<PlanGenerationResult> {
    const requirements = analyzeGoalByRules(input, this.lexiconOf(input.request.tool_catalog));
    return this.ranking.generate({ ...input, requirements });
  }
}
