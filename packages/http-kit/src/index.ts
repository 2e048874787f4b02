export * from './request-params';
