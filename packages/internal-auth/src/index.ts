export * from './internal-auth';
export * from './body-signature';
