export * from './run';
export * from './server';
export * from './resources';
export * from './draining';
export { repeatEvery, type Repeating } from './repeat';
