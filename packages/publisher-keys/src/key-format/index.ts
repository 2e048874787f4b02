export * from './key-format';
