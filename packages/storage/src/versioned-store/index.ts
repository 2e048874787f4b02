export * from './versioned-store';
export * from './pending-entries';
