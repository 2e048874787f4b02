/**
 * The names of records shown by id elsewhere (a figures table, a report): one list call for the ids of a
 * page (`ids=`, up to 100), answered with the records this account can open; the others have no name and
 * are shown as their ids, not links.
 */
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { apiBody } from '../api';
import { pagePath, type Page } from '../paged-list';

/** The most ids one call names (the lists' `ids` filter). */
const MAX_IDS = 100;

export type NamedKind = 'campaign' | 'publisher';

const PATH: Record<NamedKind, string> = { campaign: '/api/workspace/campaigns', publisher: '/api/workspace/publishers' };

export function useRecordNames(kind: NamedKind, ids: readonly number[], enabled = true): Map<number, string> {
  const asked = useMemo(() => [...new Set(ids)].sort((a, b) => a - b).slice(0, MAX_IDS), [ids]);
  const answer = useQuery({
    queryKey: [`${kind}s`, 'names', asked],
    enabled: enabled && asked.length > 0,
    staleTime: 60_000,
    retry: false,
    queryFn: ({ signal }) => apiBody<Page<{ id: number; name?: string; link?: string }>>(pagePath(PATH[kind], { ids: asked.join(',') }, null, MAX_IDS), { signal }),
  });
  return useMemo(() => new Map((answer.data?.items ?? []).map((item) => [item.id, item.name ?? item.link ?? `#${item.id}`])), [answer.data]);
}
