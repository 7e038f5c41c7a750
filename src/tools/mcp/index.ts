export * from './config';
export * from './connection';
export * from './errors';
export * from './pack';
export * from './result';
export * from './self-description';
