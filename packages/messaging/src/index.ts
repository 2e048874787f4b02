export * from './bus';
export * from './outbox';
