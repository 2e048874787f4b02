export * from './key-format';
export * from './read-model';
