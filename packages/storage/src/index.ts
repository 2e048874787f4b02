export * from './mongo';
export * from './versioned-store';
