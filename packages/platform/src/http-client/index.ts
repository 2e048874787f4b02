export * from './internal-get';
export * from './get-json';
