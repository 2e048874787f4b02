export * from './relay';
export * from './versioned-store';
