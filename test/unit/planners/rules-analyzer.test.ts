import { RuleBasedAnalyzer } from '../../../src/planners/analyze/rules-analyzer';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';
import { analyze, request } from '../../support/planning';

describe('requirements analysis by rules', () => {
  test('"Add validation" is unclear: a concrete question, options and a default', () => {
    const r = analyze('Add validation');
    expect(r.is_clear).toBe(false);
    expect(r.clarification).toEqual({
      question: 'What type of validation should I add?',
      options: [
        'Email format validation',
        'Phone number validation',
        'Required field validation',
        'Something else (describe it)',
      ],
      default_option: 0,
    });
  });

  test("a vague word of the pack's domain gets the pack's options; without the pack's lexicon the question is generic", async () => {
    expect(analyze('Check the reports').clarification).toMatchObject({
      question: 'Which report do you need?',
      options: [
        'Shipments from last week',
        'Contaminants detected this month',
        'Inspections rejected this week',
        'Something else (describe it)',
      ],
    });
    const { requirements } = await new RuleBasedAnalyzer().analyze({
      request: request('Check the reports'),
      catalog: WASTE_CATALOG,
    });
    expect(requirements.clarification?.question).toBe(
      '"Check the reports" is too vague to plan. Which data should it cover?',
    );
    // The options are the different data the catalog holds, never the goal with a tool's name appended.
    expect(requirements.clarification?.options).toEqual([
      ...WASTE_CATALOG.slice(0, 3).map((t) => t.description),
      'Something else (describe it)',
    ]);
  });

  test('a goal that only asks to see data, naming no tool, place or date, is unclear however many words it has', () => {
    expect(analyze('Look into the problem loads').is_clear).toBe(false);
    expect(analyze('Get me the data on the bad stuff').clarification?.question).toBe(
      '"Get me the data on the bad stuff" is too vague to plan. Which data should it cover?',
    );
    // Each of these pins something down (a name; a tool; an action no tool does): planned, not asked.
    expect(analyze('Tell me the weather forecast for Hamburg tomorrow').is_clear).toBe(true);
    expect(analyze('Show the rejected inspections').is_clear).toBe(true);
    expect(analyze('Translate the safety manual into Polish').is_clear).toBe(true);
    // A value a tool filters on pins the goal down as a tool's name does ("composting": a type of facility).
    expect(analyze('List the composting sites and phone each site manager to confirm their capacity').is_clear).toBe(
      true,
    );
  });

  test('an empty goal asks what to plan, offering the catalog', () => {
    const r = analyze('   ');
    expect(r.is_clear).toBe(false);
    expect(r.clarification?.question).toBe('What would you like me to plan?');
    expect(r.clarification?.options[0]).toMatch(/^Query shipments/);
  });

  test('the answer in the conversation context makes the goal clear, and the vague words are no requirement of their own', () => {
    const r = analyze('Add validation', { context: [{ role: 'user', content: 'Email format validation' }] });
    expect(r.is_clear).toBe(true);
    expect(r.clarification).toBeNull();
    expect(r.steps).toEqual(['Email format validation']);

    const answered = analyze('Check the reports', { context: [{ role: 'user', content: 'Shipments from last week' }] });
    expect(answered.required_capabilities).toEqual(['shipments']);
  });

  test('a data goal: intent, entities, date ranges and abstract steps without values', () => {
    const r = analyze('Get contaminated shipments from last week and show me the contaminant details');
    expect(r.is_clear).toBe(true);
    expect(r.intent).toEqual({ type: 'query', confidence: 0.9 });
    expect(r.temporal_references).toEqual([{ phrase: 'last week', start: '2026-11-16', end: '2026-11-22' }]);
    expect(r.required_capabilities).toEqual(['shipments', 'contaminants-detected']);
    expect(r.steps).toEqual([
      'Fetch shipments from the catalog filtered by date range, has contaminants',
      'Fetch contaminants-detected from the catalog',
    ]);
    expect(r.steps.join(' ')).not.toMatch(/2026|\$\{/);
  });

  test('places and filter values become entities; the place does not leak into the steps', () => {
    const r = analyze('From the inspections accepted this week, did we detect any high-risk contaminants in Hannover?');
    expect(r.entities).toEqual(
      expect.arrayContaining([
        { type: 'location', value: 'Hannover' },
        { type: 'status', value: 'accepted' },
        { type: 'risk_level', value: 'high' },
        { type: 'date_range', value: 'this week' },
      ]),
    );
    expect(r.steps.join(' ')).not.toContain('Hannover');
  });

  test('intents: question, command, confirmation', () => {
    expect(analyze('How does the planner pick a tool?').intent.type).toBe('question');
    expect(analyze('Deploy the new billing service to staging').intent.type).toBe('command');
    expect(analyze('yes').intent.type).toBe('confirmation');
  });

  test('no template variables are ever invented in requirement steps', () => {
    const r = analyze('Use ${step[0].data.id} and get shipments');
    expect(r.steps.some((s) => s.includes('${'))).toBe(false);
  });
});
