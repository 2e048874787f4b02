/**
 * The service platform every service and shared package builds on. Tracing is not here: it starts before
 * anything else is loaded, from its own entry `@pilot/platform/tracing`.
 */
export * from './config';
export * from './logging';
export * from './infrastructure-errors';
export * from './redis';
export * from './problems';
export * from './metrics';
export * from './lifecycle';
export * from './internal-auth';
export * from './http-client';
export * from './http';
