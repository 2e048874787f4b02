export * from './read-model';
export * from './key-reader';
export * from './key-use';
