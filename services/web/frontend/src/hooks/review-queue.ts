/**
 * What waits for an administrator (issue 20, UX): campaigns and platforms in review, oldest first (the
 * one that has waited longest is at the top), and approved campaigns not yet activated. The lists are
 * the workspace's own list calls; the navigation shows their counts.
 */
import { useCampaignList, usePublisherList } from './workspace-lists';

/** Oldest change of state first: `updatedAt` is when the record entered its current status. */
export function oldestFirst<T extends { updatedAt: string; id: number }>(items: T[]): T[] {
  return [...items].sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id - b.id);
}

export function useReviewQueue(enabled: boolean) {
  const campaigns = useCampaignList(enabled);
  const publishers = usePublisherList(enabled);
  const campaignItems = campaigns.data?.items ?? [];
  return {
    campaigns: oldestFirst(campaignItems.filter((campaign) => campaign.status === 'submitted')),
    platforms: oldestFirst((publishers.data?.items ?? []).filter((publisher) => publisher.status === 'submitted')),
    waitingForActivation: oldestFirst(campaignItems.filter((campaign) => campaign.status === 'approved')),
    loaded: Boolean(campaigns.data && publishers.data),
    error: campaigns.error ?? publishers.error,
  };
}
