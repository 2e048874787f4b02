export * from './client';
export * from './limiter';
export * from './eviction-policy';
export * from './ended-sessions';
export * from './lua-commands';
