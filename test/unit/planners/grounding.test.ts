/** Which pre-mortem errors may block a plan: those that quote a value their step really passes, as a value of its own. */
import { parsePlanJson } from '../../../src/domain/plan';
import { groundCritiques } from '../../../src/planners/critique/grounding';
import { planReply, validSteps } from '../../support/llm';
import { request, STAMP } from '../../support/planning';

const steps = validSteps();
steps[1]!.params = { ...steps[1]!.params, facility_id: 'FAC-7' };
const plan = parsePlanJson(planReply(steps), {
  id: STAMP.id,
  version: 1,
  goal: 'g',
  metadata: { planner: 'llm', created_at: STAMP.created_at },
});
const req = request('Get contaminated shipments from last week and their contaminant details');
const error = (message: string) => ({
  critic: 'llm-premortem',
  severity: 'error' as const,
  step_id: '1.2',
  message,
  suggestion: '',
});

describe('grounding of pre-mortem errors', () => {
  it('an error quoting the value on its own stands; one where it is only part of a longer word (or a timestamp) becomes a warning', () => {
    const grounded = groundCritiques(
      [error('facility FAC-7 was closed last year'), error('FAC-77 is not a facility')],
      plan,
      req,
      'example',
    );
    expect(grounded.map((c) => c.severity)).toEqual(['error', 'warning']);
    expect(grounded[1]!.message).toBe(
      'FAC-77 is not a facility (not grounded in a value the step passes: kept as a warning)',
    );
  });

  it("an error claiming the tool does not support what the step passes becomes a warning: validation against the tool's schema settled that", () => {
    const claims = [
      error("The tool 'contaminants-detected' does not support the 'facility_id' parameter 'FAC-7'"),
      error('facility_id FAC-7 is not a valid value for this tool'),
    ];
    expect(groundCritiques(claims, plan, req, 'example').map((c) => c.severity)).toEqual(['warning', 'warning']);
  });
});
