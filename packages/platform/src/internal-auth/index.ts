export * from './internal-auth';
export * from './body-signature';
export * from './client-address';
