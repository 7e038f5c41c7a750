import { loadConfig } from '../../src/config';
import { loadTemporalTarget, workflowUiUrl } from '../../src/temporal-connection';
import { searchAttributeCliFlags } from '../../src/api/search-attributes';

describe('Temporal connection settings', () => {
  test('without TEMPORAL_ADDRESS the target is the local dev server and its Web UI', () => {
    const target = loadTemporalTarget(loadConfig({}).temporal);
    expect(target.address).toBe('localhost:7233');
    expect(target.namespace).toBe('default');
    expect(workflowUiUrl(target, 'plan-1', 'run-1')).toBe(
      'http://localhost:8233/namespaces/default/workflows/plan-1/run-1/history',
    );
  });

  test('Temporal Cloud settings come from the standard variables, with TLS for an API key on the regional endpoint', () => {
    const env = {
      TEMPORAL_ADDRESS: 'us-east-1.aws.api.temporal.io:7233',
      TEMPORAL_NAMESPACE: 'ns.acct',
      TEMPORAL_API_KEY: 'key',
    };
    const target = loadTemporalTarget(loadConfig(env).temporal);
    expect(target.namespace).toBe('ns.acct');
    expect(target.connectionOptions).toMatchObject({
      address: 'us-east-1.aws.api.temporal.io:7233',
      apiKey: 'key',
      tls: true,
    });
    expect(workflowUiUrl(target, 'a b')).toBe('https://cloud.temporal.io/namespaces/ns.acct/workflows/a%20b');
    // mTLS goes to the namespace endpoint: the same Web UI.
    const mtls = loadTemporalTarget(
      loadConfig({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'ns.acct' }).temporal,
    );
    expect(workflowUiUrl(mtls, 'a')).toBe('https://cloud.temporal.io/namespaces/ns.acct/workflows/a');
  });

  test('TEMPORAL_UI_URL and the --address / --namespace overrides win', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'a:7233', TEMPORAL_UI_URL: 'http://ui:8080' });
    const target = loadTemporalTarget(config.temporal, { address: 'b:7233', namespace: 'ns' });
    expect(target).toMatchObject({ address: 'b:7233', namespace: 'ns', webUiUrl: 'http://ui:8080' });
    expect(target.connectionOptions.address).toBe('b:7233');
  });

  test('the dev server registers every planner search attribute with its CLI type name', () => {
    expect(searchAttributeCliFlags()).toEqual([
      '--search-attribute',
      'PlanStage=Keyword',
      '--search-attribute',
      'PlanVersion=Int',
      '--search-attribute',
      'PlanCostSpent=Double',
      '--search-attribute',
      'PlanTokensSpent=Int',
      '--search-attribute',
      'PlanGoalKeywords=KeywordList',
    ]);
  });
});
