import { routeSteps, type ToolRoute } from '../../../src/domain/routing';
import type { Step } from '../../../src/domain/plan';
import { stepDefaults } from '../../support/plans';

const step = (id: string, tool: string | null, action: Step['action'] = 'tool_call'): Step => ({
  ...stepDefaults(),
  id,
  title: id,
  action,
  tool,
  parallel: true,
});
const route = (...queues: string[]): ToolRoute => ({
  queues,
  cost_per_call_usd: 0,
  tokens_per_call: 0,
  idempotent: true,
});

describe('routing steps to worker pools', () => {
  test('each step goes to the pool serving its tool, with the reason recorded', () => {
    const { decisions } = routeSteps([step('1.1', 'shipments')], { shipments: route('waste-pool') }, 'planner');
    expect(decisions).toEqual([
      { step_id: '1.1', tool: 'shipments', queue: 'waste-pool', reason: 'the only pool serving shipments' },
    ]);
  });

  test('equal pools take turns, and the turn counter carries over to the next routing', () => {
    const routes = { search: route('pool-a', 'pool-b') };
    const first = routeSteps([step('1.1', 'search'), step('1.2', 'search'), step('1.3', 'search')], routes, 'planner');
    expect(first.decisions.map((d) => d.queue)).toEqual(['pool-a', 'pool-b', 'pool-a']);
    expect(first.decisions[1]!.reason).toBe('round robin over 2 pools serving search (turn 2)');
    const next = routeSteps([step('2.1', 'search')], routes, 'planner', first.turns);
    expect(next.decisions[0]!.queue).toBe('pool-b');
    expect(first.turns).toEqual({ search: 3 }); // not mutated by the second call
  });

  test('steps without a tool pool run on the planner queue, and say why', () => {
    const { decisions } = routeSteps([step('1.1', null, 'llm'), step('1.2', 'unknown')], {}, 'planner');
    expect(decisions.map((d) => [d.queue, d.reason])).toEqual([
      ['planner', "llm step runs on the planner's queue"],
      ['planner', "no pool registered for unknown; planner's queue"],
    ]);
  });
});
