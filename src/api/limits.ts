/**
 * Every size limit of the contract in one place: what a request, a message payload and a plan may hold. Input over
 * a limit is refused with PLAN-006 (a plan: the validation issue PARAMS_TOO_LARGE; an LLM reply: PLAN-001) whose
 * message names the limit. PlannerClient and the CLI check requests and payloads against them before sending.
 */
export { REQUEST_LIMITS } from '../domain/request';
export { PLAN_LIMITS } from '../domain/plan';
export { MESSAGE_LIMITS } from './messages';
