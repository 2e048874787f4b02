export * from './layout';
export * from './recorder';
export * from './journal';
export * from './unfolded';
