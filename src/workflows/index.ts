/** The workflows a planner worker registers. Messages, input and state types live in the contract, src/api. */
export { planningWorkflow } from './planning';
