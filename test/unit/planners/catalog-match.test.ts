import { matchCatalog, toolTerms } from '../../../src/planners/catalog-match';
import { contentStems, contentTokens, stem, tokenize, type Token } from '../../../src/domain/text';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';

const shipments = WASTE_CATALOG.find((t) => t.name === 'shipments')!;

describe('catalog matching', () => {
  test("a tool's terms: the stems of its name, tags and description, its params, and its boolean filters' stems", () => {
    const terms = toolTerms(shipments);
    expect([...terms.names]).toEqual(['shipment']);
    expect(terms.params.map(([p]) => p)).toEqual(Object.keys(shipments.parameters.properties ?? {}));
    expect(terms.booleans).toEqual([{ param: 'has_contaminants', stems: new Set([stem('contaminants')]) }]);
    for (const tag of shipments.tags) expect(terms.vocabulary.has(tokenize(tag)[0]!.stem)).toBe(true);
  });

  test("a tool's link facts: its <x>_id(s) params with x's stem, its enum params, and the fields of its result's rows", () => {
    const detected = toolTerms(WASTE_CATALOG.find((t) => t.name === 'contaminants-detected')!);
    expect(detected.idParams.map(({ param, base, baseStem, many }) => ({ param, base, baseStem, many }))).toEqual([
      { param: 'shipment_ids', base: 'shipment', baseStem: stem('shipments'), many: true },
      { param: 'facility_id', base: 'facility', baseStem: stem('facilities'), many: false },
    ]);
    expect(detected.enums.map(([p]) => p)).toEqual(['risk_level']);
    expect(detected.rowFields).toEqual(
      new Set(['id', 'shipment_id', 'facility_id', 'contaminant', 'risk_level', 'concentration_ppm', 'detected_on']),
    );
  });

  test("a word's apostrophe-s is dropped, other apostrophes kept, and positions count the words", () => {
    expect(
      tokenize("Hamburg's carriers' loads, O’Brien 2 trucks").map(({ text, lower, stem: s, pos }) => [
        text,
        lower,
        s,
        pos,
      ]),
    ).toEqual([
      ['Hamburg', 'hamburg', 'hamburg', 0],
      ['carriers', 'carriers', 'carrier', 1],
      ['loads', 'loads', 'load', 2],
      ['O’Brien', 'o’brien', 'o’brien', 3],
      ['2', '2', '2', 4],
      ['trucks', 'trucks', 'truck', 5],
    ]);
  });

  test('contentStems: the stems of the content words, in order, as tokenize and contentTokens give them', () => {
    const text = "Query the shipments' contaminants for step 1.1 and Hamburg's 12 inspections";
    expect(contentStems(text)).toEqual(contentTokens(tokenize(text)).map((t) => t.stem));
    expect(contentStems(text)).toEqual(['query', 'shipment', 'contamin', 'step', 'hamburg', 'inspect']);
  });

  test('are derived once per spec, so matching a goal against a catalog again derives nothing; another spec has its own', () => {
    expect(toolTerms(shipments)).toBe(toolTerms(shipments));
    const renamed = { ...shipments, name: 'consignments' };
    expect([...toolTerms(renamed).names]).toEqual(['consignment']);
    expect([...toolTerms(shipments).names]).toEqual(['shipment']);
  });

  test('"contaminated shipments": the modifier selects the boolean filter, and the noun the tool', () => {
    const tokens = tokenize('Get contaminated shipments from last week');
    const { tools, modifiers } = matchCatalog(tokens, WASTE_CATALOG);
    expect(modifiers).toEqual([{ tool: 'shipments', param: 'has_contaminants', token: tokens[1], value: true }]);
    expect(tools.map((m) => m.tool.name)).toEqual(['shipments']);
  });

  test('a modifier counts two words before its noun, not three, and a content-word subset (positions with gaps) still finds it', () => {
    const two = tokenize('contaminated incoming shipments');
    const modifiersOf = (tokens: Token[]) => matchCatalog(tokens, WASTE_CATALOG).modifiers;
    expect(modifiersOf(two)).toEqual([{ tool: 'shipments', param: 'has_contaminants', token: two[0], value: true }]);
    expect(modifiersOf(tokenize('contaminated and very late shipments'))).toEqual([]);
    const gapped = tokenize('the contaminated and shipments').filter((t) => t.lower !== 'and');
    expect(modifiersOf(gapped)).toEqual([
      { tool: 'shipments', param: 'has_contaminants', token: gapped[1], value: true },
    ]);
  });
});
