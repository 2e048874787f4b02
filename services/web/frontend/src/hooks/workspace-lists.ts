/**
 * The workspace's two list calls, each under one query key: the pages, the navigation's review counts
 * and the shared-link notice on screen together share one request and its cached answer (a page opened
 * once the answer is stale asks again).
 */
import { useQuery } from '@tanstack/react-query';
import { apiPages } from '../api';
import type { Campaign, Publisher } from '../types';

export const CAMPAIGN_LIST_KEY = ['campaigns', 'list'] as const;
export const PUBLISHER_LIST_KEY = ['publishers', 'list'] as const;

/** Every campaign the account can see, page after page (the API's status filter is not used: per-status counts need all). */
export function useCampaignList(enabled = true) {
  return useQuery({
    queryKey: CAMPAIGN_LIST_KEY,
    enabled,
    queryFn: ({ signal }) => apiPages<Campaign>('/api/workspace/campaigns', {}, { signal }),
  });
}

/** Every platform the account can see. */
export function usePublisherList(enabled = true) {
  return useQuery({
    queryKey: PUBLISHER_LIST_KEY,
    enabled,
    queryFn: ({ signal }) => apiPages<Publisher>('/api/workspace/publishers', {}, { signal }),
  });
}
