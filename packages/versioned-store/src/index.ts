export * from './versioned-store';
