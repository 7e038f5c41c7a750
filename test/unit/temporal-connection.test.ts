import { loadTemporalTarget, workflowUiUrl } from '../../src/temporal-connection';
import { searchAttributeCliFlags } from '../../src/api/search-attributes';

describe('Temporal connection settings', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test('without TEMPORAL_ADDRESS the target is the local dev server and its Web UI', () => {
    delete process.env.TEMPORAL_ADDRESS;
    delete process.env.TEMPORAL_NAMESPACE;
    delete process.env.TEMPORAL_UI_URL;
    const target = loadTemporalTarget();
    expect(target.address).toBe('localhost:7233');
    expect(target.namespace).toBe('default');
    expect(workflowUiUrl(target, 'plan-1', 'run-1')).toBe(
      'http://localhost:8233/namespaces/default/workflows/plan-1/run-1/history',
    );
  });

  test('Temporal Cloud settings come from the standard variables, with TLS for an API key', () => {
    process.env.TEMPORAL_ADDRESS = 'ns.acct.tmprl.cloud:7233';
    process.env.TEMPORAL_NAMESPACE = 'ns.acct';
    process.env.TEMPORAL_API_KEY = 'key';
    const target = loadTemporalTarget();
    expect(target.namespace).toBe('ns.acct');
    expect(target.connectionOptions).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', apiKey: 'key', tls: true });
    expect(workflowUiUrl(target, 'a b')).toBe('https://cloud.temporal.io/namespaces/ns.acct/workflows/a%20b');
  });

  test('the dev server registers every planner search attribute with its CLI type name', () => {
    expect(searchAttributeCliFlags()).toEqual([
      '--search-attribute', 'PlanStage=Keyword',
      '--search-attribute', 'PlanVersion=Int',
      '--search-attribute', 'PlanCostSpent=Double',
      '--search-attribute', 'PlanTokensSpent=Int',
      '--search-attribute', 'PlanGoalKeywords=KeywordList',
    ]);
  });
});
