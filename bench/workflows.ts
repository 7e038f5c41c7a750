/** The bench worker's workflow bundle: the planner's workflows and the baseline, bundled together once. */
export * from '../src/workflows';
export { baselineWorkflow } from './baseline-workflow';
