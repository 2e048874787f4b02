export * from './validation';
export * from './public-host';
export * from './text-length';
