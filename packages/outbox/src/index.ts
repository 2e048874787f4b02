export * from './relay';
export { markFlaggedEntries, markPending, pendingCollectionName, type OutboxQueue, type PendingMarker } from './pending-markers';
