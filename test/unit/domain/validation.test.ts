import { callUsage, charge, createBudget, LLM_CALL_ESTIMATE } from '../../../src/domain/budget';
import { PlanValidationError, type ValidationIssue } from '../../../src/domain/errors';
import { PlanSchema, type PlanInput } from '../../../src/domain/plan';
import { planIssues, runnableStepKinds, validatePlan, type ValidationContext } from '../../../src/domain/validation';
import { z } from 'zod';
import { pathParam, toolSpecFromJsonSchema, toolSpecFromZod } from '../../../src/domain/tool-spec';
import { catalog, validPlanInput } from '../../support/plans';

const ctx: ValidationContext = { catalog, constraints: { max_steps: 20, workspace_root: '/work/ws' } };

/** The valid fixture plan with step `index` (flattened) changed by `edit`. */
function withStep(index: number, edit: (step: Record<string, unknown>) => void): PlanInput {
  const plan = validPlanInput();
  const steps = plan.tasks.flatMap((t) => t.steps) as Record<string, unknown>[];
  edit(steps[index]!);
  return plan;
}

const codes = (issues: ValidationIssue[]) => issues.map((i) => i.code);

describe('validatePlan', () => {
  it('accepts the valid plan, parsed or not', () => {
    expect(validatePlan(validPlanInput(), ctx)).toEqual([]);
    expect(validatePlan(PlanSchema.parse(validPlanInput()), ctx)).toEqual([]);
  });

  it('finds the same issues in a typed plan through planIssues, which skips the schema parse', () => {
    const plan = PlanSchema.parse(withStep(0, (s) => ((s.tool = 'shipmentz'), (s.depends_on = [2]))));
    expect(codes(planIssues(plan, ctx))).toEqual(['UNKNOWN_TOOL', 'STEP_CROSSES_TASKS', 'CYCLE']);
    expect(planIssues(plan, ctx)).toEqual(validatePlan(plan, ctx));
  });

  it('rejects a dependency cycle and names it', () => {
    const plan = withStep(0, (s) => (s.depends_on = [2]));
    const issues = validatePlan(plan, ctx);
    const cycle = issues.find((i) => i.code === 'CYCLE');
    expect(cycle?.message).toBe('dependency cycle 0 → 2 → 1 → 0');
    expect(cycle?.step_index).toBe(0);
  });

  it('rejects a self-dependency as a cycle', () => {
    expect(
      validatePlan(
        withStep(0, (s) => (s.depends_on = [0])),
        ctx,
      ).find((i) => i.code === 'CYCLE')?.message,
    ).toBe('dependency cycle 0 → 0');
  });

  it('rejects depends_on out of range', () => {
    const issues = validatePlan(
      withStep(2, (s) => (s.depends_on = [1, 3])),
      ctx,
    );
    expect(issues).toEqual([expect.objectContaining({ code: 'DEPENDENCY_OUT_OF_RANGE', step_index: 2 })]);
  });

  it('rejects an unknown tool and lists the catalog in the hint', () => {
    const [issue] = validatePlan(
      withStep(0, (s) => (s.tool = 'shipmentz')),
      ctx,
    );
    expect(issue).toMatchObject({
      code: 'UNKNOWN_TOOL',
      step_index: 0,
      message: 'step 0 ("1.1"): unknown tool "shipmentz"',
    });
    expect(issue!.hint).toContain('shipments, facilities, contaminants-detected, write-report');
  });

  it('names the closest catalog tools first for an unknown one, and none when nothing is close', () => {
    const hintFor = (tool: string) =>
      validatePlan(
        withStep(0, (s) => (s.tool = tool)),
        ctx,
      )[0]!.hint;
    expect(hintFor('shipmentz')).toMatch(/^Did you mean "shipments"\? Use one of/);
    expect(hintFor('search_shipments')).toMatch(/^Did you mean "shipments"\?/);
    expect(hintFor('contaminants')).toMatch(/^Did you mean "contaminants-detected"\?/);
    expect(hintFor('send_email')).toMatch(/^Use one of the catalog tools/);
  });

  it('rejects a tool outside allowed_tools', () => {
    const issues = validatePlan(validPlanInput(), {
      ...ctx,
      constraints: { ...ctx.constraints, allowed_tools: ['shipments', 'contaminants-detected'] },
    });
    expect(issues).toEqual([expect.objectContaining({ code: 'TOOL_NOT_ALLOWED', step_index: 2 })]);
  });

  it('rejects bad params: wrong type, bad enum, bad date, unknown param', () => {
    const issues = validatePlan(
      withStep(
        0,
        (s) => (s.params = { date_from: '16.11.2026', has_contaminants: 'yes', status: 'lost', colour: 'red' }),
      ),
      ctx,
    );
    expect(codes(issues)).toEqual(['INVALID_PARAM', 'INVALID_PARAM', 'INVALID_PARAM', 'INVALID_PARAM']);
    expect(issues.map((i) => i.message)).toEqual([
      'step 0 ("1.1"): tool "shipments" param date_from: must be a date (YYYY-MM-DD)',
      'step 0 ("1.1"): tool "shipments" param has_contaminants: expected boolean, got string',
      'step 0 ("1.1"): tool "shipments" param status: must be one of "pending", "delivered", "rejected"',
      'step 0 ("1.1"): tool "shipments" param colour: unknown param "colour" (allowed: date_from, date_to, has_contaminants, status, limit)',
    ]);
  });

  it('takes a list template (.*) in a top-level param that takes one value (the step runs once per value), and refuses one deeper in the params', () => {
    const list = '${step[0].data.*.facility_id}';
    expect(
      validatePlan(
        withStep(1, (s) => (s.params = { facility_id: list })),
        ctx,
      ),
    ).toEqual([]);
    expect(
      validatePlan(
        withStep(1, (s) => (s.params = { facility_id: '${step[0].data[0].facility_id}' })),
        ctx,
      ),
    ).toEqual([]);
    expect(
      validatePlan(
        withStep(1, (s) => (s.params = { shipment_ids: '${step[0].data.*.id}' })),
        ctx,
      ),
    ).toEqual([]);
    const nested = validatePlan(
      withStep(1, (s) => (s.params = { shipment_ids: [list] })),
      ctx,
    );
    expect(nested).toEqual([expect.objectContaining({ code: 'INVALID_PARAM', step_index: 1 })]);
    expect(nested[0]!.message).toContain(`param shipment_ids[0]: expected string, but ${list} gives a list`);
  });

  it('rejects a plan that names a catalog tool as missing, in its words or in the singular', () => {
    const plan = {
      ...validPlanInput(),
      status: 'PARTIAL',
      missing_capabilities: ['Facilities ', 'sending email', 'contaminants'],
    };
    const issues = validatePlan(plan, ctx);
    expect(issues.map((i) => [i.code, i.message])).toEqual([
      ['MISSING_BUT_AVAILABLE', 'missing_capabilities names "Facilities ", but "facilities" is a tool of the catalog'],
      [
        'MISSING_BUT_AVAILABLE',
        'missing_capabilities names "contaminants", but "contaminants-detected" is a tool of the catalog',
      ],
    ]);
    expect(validatePlan({ ...plan, missing_capabilities: ['sending email', 'contaminant cleanup crew'] }, ctx)).toEqual(
      [],
    );
  });

  it('rejects an IMPOSSIBLE plan with steps, and accepts one without', () => {
    const impossible = validatePlan(
      { ...validPlanInput(), status: 'IMPOSSIBLE', missing_capabilities: ['sending email'] },
      ctx,
    );
    expect(impossible).toEqual([
      expect.objectContaining({ code: 'STATUS_CONTRADICTS_STEPS', message: 'the plan is IMPOSSIBLE with 3 step(s)' }),
    ]);
    expect(impossible[0]!.hint).toContain('the status is PARTIAL');
    expect(
      validatePlan(
        { ...validPlanInput(), status: 'IMPOSSIBLE', missing_capabilities: ['sending email'], tasks: [] },
        ctx,
      ),
    ).toEqual([]);
  });

  it('rejects placeholder values a model writes when it has none, and keeps ordinary ones', () => {
    const issues = validatePlan(
      withStep(0, (s) => (s.params = { status: 'your_status', date_from: '<start date>' })),
      ctx,
    );
    expect(codes(issues)).toContain('PLACEHOLDER_VALUE');
    expect(issues.filter((i) => i.code === 'PLACEHOLDER_VALUE').map((i) => i.message)).toEqual([
      'step 0 ("1.1"): param status is a placeholder, "your_status"',
      'step 0 ("1.1"): param date_from is a placeholder, "<start date>"',
    ]);
    expect(
      codes(
        validatePlan(
          withStep(1, (s) => (s.params = { facility_id: 'FAC-001' })),
          ctx,
        ),
      ),
    ).not.toContain('PLACEHOLDER_VALUE');
  });

  it('rejects a missing required param', () => {
    const [issue] = validatePlan(
      withStep(2, (s) => (s.params = { path: 'reports/x.md' })),
      ctx,
    );
    expect(issue).toMatchObject({ code: 'MISSING_PARAM', step_index: 2 });
    expect(issue!.message).toContain('missing required param "content"');
    expect(issue!.hint).toContain('requires: path, content');
  });

  it('rejects a template that references a step which is not a direct dependency', () => {
    const issues = validatePlan(
      withStep(2, (s) => (s.params = { path: 'r.md', content: '${step[0].data.*.id} ${step[1].data}' })),
      ctx,
    );
    expect(issues).toEqual([expect.objectContaining({ code: 'TEMPLATE_NOT_DEPENDENCY', step_index: 2 })]);
    expect(issues[0]!.message).toContain('step 0 is not in depends_on');
    expect(issues[0]!.hint).toBe('Add 0 to depends_on.');
  });

  it('rejects templates to missing steps and malformed templates', () => {
    const issues = validatePlan(
      withStep(1, (s) => (s.params = { shipment_ids: '${step[9].data.*.id}', facility_id: '${step[0].data[*].id}' })),
      ctx,
    );
    expect(codes(issues)).toEqual(['MALFORMED_TEMPLATE', 'TEMPLATE_OUT_OF_RANGE']);
  });

  it('rejects duplicate step ids', () => {
    const issues = validatePlan(
      withStep(2, (s) => (s.id = '1.1')),
      ctx,
    );
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'DUPLICATE_STEP_ID',
        step_index: 2,
        message: 'step 2 reuses id "1.1" of step 0',
      }),
    ]);
  });

  it('rejects more steps than max_steps', () => {
    expect(codes(validatePlan(validPlanInput(), { ...ctx, constraints: { max_steps: 2 } }))).toEqual([
      'TOO_MANY_STEPS',
    ]);
  });

  it.each([
    ['OpenAI key', { api: 'sk-proj-abcdefghijklmnop1234' }],
    ['GitHub token', { repo_token_note: 'use ghp_abcdefghijklmnopqrstuvwxyz0123456789' }],
    ['AWS key id', { aws: 'AKIAIOSFODNN7EXAMPLE' }],
    ['bearer token', { headers: { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig' } }],
    ['private key', { pem: '-----BEGIN RSA PRIVATE KEY-----\nMIIE...' }],
    ['password key', { password: 'hunter2' }],
    ['api key name', { apiKey: 'abc123' }],
    ['secret inside a list', { config: { client_secret: ['x', 'y'] } }],
  ])('rejects a secret in params: %s', (_name, params) => {
    const plan = withStep(0, (s) => (s.action = 'llm'));
    plan.tasks[0]!.steps[0]!.params = params;
    const issues = validatePlan(plan, ctx);
    expect(codes(issues)).toContain('SECRET_IN_PARAMS');
    for (const issue of issues)
      expect(issue.message).not.toMatch(/hunter2|abcdefghijklmnop|AKIAIOSFODNN7EXAMPLE|abc123/);
  });

  it('accepts credential-named params that are placeholders or not literal strings', () => {
    const plan = withStep(0, (s) => (s.action = 'llm'));
    plan.tasks[0]!.steps[0]!.params = {
      token: '${env.GITHUB_TOKEN}',
      max_tokens: 512,
      tokens: 'many',
      password_policy: 'strict',
    };
    expect(validatePlan(plan, ctx)).toEqual([]);
  });

  it.each([['../../etc/passwd'], ['/etc/passwd'], ['reports/../../ws2/x'], ['~/notes.md'], ['/work/wsx/file']])(
    'rejects a path escaping the workspace: %s',
    (path) => {
      const issues = validatePlan(
        withStep(2, (s) => (s.params = { path, content: 'x' })),
        ctx,
      );
      expect(issues).toEqual([expect.objectContaining({ code: 'PATH_OUTSIDE_WORKSPACE', step_index: 2 })]);
    },
  );

  it('accepts paths inside the workspace, and path-like values under other names', () => {
    for (const path of ['reports/a.md', './a.md', '/work/ws/a.md', 'a/../b.md', '/work/ws']) {
      expect(
        validatePlan(
          withStep(2, (s) => (s.params = { path, content: 'x' })),
          ctx,
        ),
      ).toEqual([]);
    }
    const plan = withStep(0, (s) => (s.action = 'llm'));
    plan.tasks[0]!.steps[0]!.params = { source: '/etc/hosts', url: '/api/v1' };
    expect(codes(validatePlan(plan, ctx))).toEqual(['PATH_OUTSIDE_WORKSPACE']);
  });

  it('finds path params by the schema marks of zod tools, whatever their names', () => {
    const copy = toolSpecFromZod({
      name: 'copy-file',
      description: 'Copy a file',
      params: z.object({
        from: pathParam(),
        to: z.array(pathParam()),
        path: z.string().optional(),
        label: z.string().optional(),
      }),
      task_queue: 'tools-files',
      idempotent: false,
    });
    expect(copy.path_params).toBe('marked');
    expect(copy.parameters.properties!.from).toMatchObject({ type: 'string', 'x-path': true });
    const withCopy: ValidationContext = { ...ctx, catalog: [...catalog, copy] };
    const copyStep = (params: Record<string, unknown>) =>
      withStep(2, (s) => Object.assign(s, { tool: 'copy-file', params }));
    // `..` in the middle of a value under a name the heuristic does not know ("from", "to")
    const escaping = validatePlan(
      copyStep({ from: 'sub/../../etc/passwd', to: ['ok.txt', 'a/../../../root/.ssh/x'] }),
      withCopy,
    );
    expect(escaping.map((i) => [i.code, i.message.replace(/^.*: param /, '')])).toEqual([
      ['PATH_OUTSIDE_WORKSPACE', 'from points outside the workspace /work/ws'],
      ['PATH_OUTSIDE_WORKSPACE', 'to[1] points outside the workspace /work/ws'],
    ]);
    // an unmarked param of a zod tool is not a path, whatever its name or value
    expect(validatePlan(copyStep({ from: 'a.txt', to: [], path: '/etc/x', label: '../x' }), withCopy)).toEqual([]);
  });

  it('falls back to the name heuristic for JSON Schema tools (MCP servers), which carry no marks', () => {
    const read = toolSpecFromJsonSchema({
      name: 'read_text_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      task_queue: 'tools-mcp',
      idempotent: true,
    });
    expect(read.path_params).toBe('by-name');
    const plan = withStep(2, (s) => Object.assign(s, { tool: 'read_text_file', params: { path: '/etc/shadow' } }));
    expect(codes(validatePlan(plan, { ...ctx, catalog: [...catalog, read] }))).toEqual(['PATH_OUTSIDE_WORKSPACE']);
  });

  it('skips the path check without a workspace root, and for template-built paths', () => {
    expect(
      validatePlan(
        withStep(2, (s) => (s.params = { path: '/etc/x', content: 'x' })),
        { catalog },
      ),
    ).toEqual([]);
    expect(
      validatePlan(
        withStep(2, (s) => (s.params = { path: '/tmp/${step[1].data}', content: 'x' })),
        ctx,
      ),
    ).toEqual([]);
  });

  it('checks the budget against the larger of the declared and the catalog estimate', () => {
    const tight = createBudget({ cost_usd: 0.01, tokens: 5000, calls: 3 });
    expect(validatePlan(validPlanInput(), { ...ctx, budget: tight })).toEqual([]);
    const spent = charge(tight, callUsage(0.009, 0));
    const issues = validatePlan(validPlanInput(), { ...ctx, budget: spent });
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'BUDGET_INSUFFICIENT',
        message: 'plan needs cost_usd 0.003, the budget has 0.001 left',
      }),
      expect.objectContaining({ code: 'BUDGET_INSUFFICIENT', message: 'plan needs calls 3, the budget has 2 left' }),
    ]);
    // The catalog says 1000 tokens although the plan declares only 500.
    const optimistic = { ...validPlanInput(), estimate: { cost_usd: 0, tokens: 500, calls: 1, duration_ms: 0 } };
    const fewTokens = createBudget({ cost_usd: 1, tokens: 900, calls: 10 });
    expect(validatePlan(optimistic, { ...ctx, budget: fewTokens })).toEqual([
      expect.objectContaining({ message: 'plan needs tokens 1000, the budget has 900 left' }),
    ]);
    expect(
      validatePlan(validPlanInput(), {
        ...ctx,
        budget: createBudget({ cost_usd: 0, tokens: 0, calls: 0, policy: 'warn' }),
      }),
    ).toEqual([]);
  });

  it('reports every issue at once, not just the first', () => {
    const plan = validPlanInput();
    const [s0, s1] = plan.tasks[0]!.steps;
    s0!.tool = 'nope';
    s1!.params = { shipment_ids: '${step[2].data}', password: 'p4ss' };
    s1!.depends_on = [1];
    expect(codes(validatePlan(plan, ctx)).sort()).toEqual(
      ['CYCLE', 'SECRET_IN_PARAMS', 'TEMPLATE_NOT_DEPENDENCY', 'UNKNOWN_TOOL', 'INVALID_PARAM'].sort(),
    );
  });

  it('returns schema issues for input that is not a plan', () => {
    const issues = validatePlan({ ...validPlanInput(), complexity: 4, tasks: 'x' }, ctx);
    expect(codes(issues)).toEqual(['SCHEMA', 'SCHEMA']);
    expect(issues.map((i) => i.message.split(':')[0])).toEqual(['tasks', 'complexity']);
    expect(codes(validatePlan(null, ctx))).toEqual(['SCHEMA']);
  });

  it('issues wrap into one PlanValidationError (PLAN-003)', () => {
    const issues = validatePlan(
      withStep(0, (s) => (s.tool = 'x')),
      ctx,
    );
    const error = new PlanValidationError(issues);
    expect(error.code).toBe('PLAN-003');
    expect(error.issues).toBe(issues);
    expect(error.message).toContain('[UNKNOWN_TOOL]');
  });

  describe('step kinds the run can execute', () => {
    /** The valid plan with step 1 turned into an llm step that summarizes step 0 (and step 2 into a human step). */
    const withKinds = () =>
      withStep(1, (s) => Object.assign(s, { action: 'llm', tool: null, params: {}, title: 'Summarize the shipments' }));

    it('refuses an llm step in a run that plans without an LLM, at validation, naming the step and the kinds it can run', () => {
      const issues = validatePlan(withKinds(), { ...ctx, step_kinds: runnableStepKinds('ranking') });
      expect(issues).toEqual([
        {
          code: 'STEP_KIND_NOT_RUNNABLE',
          message: 'step 1 ("1.2"): this run cannot execute llm steps',
          step_index: 1,
          hint: 'Use only step kinds this run can execute: tool_call, human, noop (llm steps need a run that plans with an LLM).',
        },
      ]);
    });

    it('counts an llm step as one LLM call in the budget, as execution does before it runs the step', () => {
      const llmPlan = { ...withKinds(), estimate: { cost_usd: 0, tokens: 0, calls: 0, duration_ms: 0 } };
      const budget = createBudget({ cost_usd: 1, tokens: 2_000, calls: 10 });
      expect(validatePlan(llmPlan, { ...ctx, budget, step_kinds: runnableStepKinds('llm') })).toEqual([
        expect.objectContaining({
          code: 'BUDGET_INSUFFICIENT',
          message: `plan needs tokens ${400 + LLM_CALL_ESTIMATE.tokens}, the budget has 2000 left`, // the tool step's 400, the llm step's
        }),
      ]);
    });

    it('accepts llm, human and noop steps in a run that plans with an LLM', () => {
      const plan = withKinds();
      const steps = plan.tasks.flatMap((t) => t.steps);
      Object.assign(steps[2]!, { action: 'human', tool: null, params: { question: 'Send the report?' } });
      expect(validatePlan(plan, { ...ctx, step_kinds: runnableStepKinds('llm') })).toEqual([]);
      Object.assign(steps[2]!, { action: 'noop', params: {} });
      expect(validatePlan(plan, { ...ctx, step_kinds: runnableStepKinds('llm') })).toEqual([]);
    });

    it('refuses a kind that does not exist as a schema issue', () => {
      const plan = withStep(0, (s) => (s.action = 'teleport'));
      expect(codes(validatePlan(plan, ctx))).toEqual(['SCHEMA']);
    });
  });
});
