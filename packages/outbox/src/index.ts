export * from './relay';
export * from './pending-entries';
