/** The prompts' shape that prompt caches depend on. */
import { analyzerSystemPrompt, plannerSystemPrompt, premortemSystemPrompt } from '../../../src/llm/prompts';
import { WASTE_CATALOG } from '../../../src/tools/waste/catalog';

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

describe('system prompts', () => {
  it('open with the same text up to and including the whole catalog, whatever the role', () => {
    const [analyzer, planner, critic] = [analyzerSystemPrompt, plannerSystemPrompt, premortemSystemPrompt].map((p) =>
      p(WASTE_CATALOG),
    );
    const shared = commonPrefix(commonPrefix(analyzer!, planner!), critic!);
    for (const tool of WASTE_CATALOG) expect(shared).toContain(`### ${tool.name}\n${tool.description}`);
    expect(shared.length / planner!.length).toBeGreaterThan(0.6); // most of each prompt is the cached prefix
    expect(shared).toContain('# Your task'); // the roles differ only after the catalog
    expect(shared).not.toContain('planner of');
  });
});
