export * from './request-params';
export * from './paging';
export * from './app';
