export * from './versioned-store';
export * from './pending-changes';
