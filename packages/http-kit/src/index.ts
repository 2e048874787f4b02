export * from './problem';
export * from './validation';
export * from './errors';
export * from './internal-auth';
export * from './metrics';
export * from './app';
export * from './server';
export * from './run';
