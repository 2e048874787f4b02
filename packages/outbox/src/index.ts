export * from './relay';
export * from './versioned-store';
export { pendingCollectionName, type OutboxQueue, type PendingMarker } from './pending-markers';
