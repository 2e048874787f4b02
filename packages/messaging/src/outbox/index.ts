export * from './relay';
