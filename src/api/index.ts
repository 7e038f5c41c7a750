/**
 * The planner's contract, shared by the workflow, the client, the CLI and other Temporal clients: messages and
 * their payloads, the workflow's input and options, the run's state and outcome, search attributes and failures.
 * Pure: nothing here imports Node or activity code.
 */
export * from './answer';
export * from './failures';
export * from './input';
export * from './limits';
export * from './messages';
export * from './search-attributes';
export * from './state';
export * from './versions';
export * from './progress';
