export * from './problem';
export * from './errors';
