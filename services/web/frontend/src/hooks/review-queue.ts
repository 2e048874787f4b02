/**
 * What waits for an administrator: campaigns and platforms in review, and approved campaigns not yet
 * activated, each the service's list filtered by status (a page at a time). The rows loaded are shown
 * oldest first (the one that has waited longest at the top); the navigation shows how many are loaded.
 */
import { useCampaignList, useListCount, usePublisherList } from './workspace-lists';

/** Rows the queue asks for at a time. */
const QUEUE_PAGE = 50;

/**
 * When a record entered its current status: a platform's `statusChangedAt` (its `updatedAt` also moves
 * when a key is made), else `updatedAt`, which for a campaign (immutable but for its status) is the same.
 */
export function inStatusSince(record: { updatedAt: string; statusChangedAt?: string }): string {
  return record.statusChangedAt ?? record.updatedAt;
}

/** Oldest change of state first. */
export function oldestFirst<T extends { updatedAt: string; statusChangedAt?: string; id: number }>(items: T[]): T[] {
  return [...items].sort((a, b) => inStatusSince(a).localeCompare(inStatusSince(b)) || a.id - b.id);
}

export function useReviewQueue(enabled: boolean) {
  const options = { enabled, limit: QUEUE_PAGE };
  const campaigns = useCampaignList({ status: 'submitted' }, options);
  const platforms = usePublisherList({ status: 'submitted' }, options);
  const waiting = useCampaignList({ status: 'approved' }, options);
  const counts = {
    campaigns: useListCount('campaigns', { status: 'submitted' }, enabled),
    platforms: useListCount('publishers', { status: 'submitted' }, enabled),
    waiting: useListCount('campaigns', { status: 'approved' }, enabled),
  };
  return {
    campaigns: { ...campaigns, items: oldestFirst(campaigns.items), count: counts.campaigns },
    platforms: { ...platforms, items: oldestFirst(platforms.items), count: counts.platforms },
    waitingForActivation: { ...waiting, items: oldestFirst(waiting.items), count: counts.waiting },
    loaded: campaigns.loaded && platforms.loaded && waiting.loaded,
    error: campaigns.error ?? platforms.error ?? waiting.error,
  };
}
