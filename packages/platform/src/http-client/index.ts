export * from './internal-get';
