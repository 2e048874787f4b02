export * from './request-params';
export * from './paging';
