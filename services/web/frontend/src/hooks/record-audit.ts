/** A campaign's or a platform's entries of the audit record, newest first: one query shared by the history and the pause notice. */
import { useQuery } from '@tanstack/react-query';
import { apiPages } from '../api';
import type { AuditEntry } from '../types';

/** A campaign or a platform, as seen by the signed-in account: what its history and its pause notice need. */
export interface RecordSeenBy {
  record: 'campaign' | 'publisher';
  id: number;
  ownerAccountId: string;
  viewer: { accountId: string; admin: boolean };
}

/** The newest 500 entries at most (five pages). */
export const AUDIT_PAGES = 5;

export function useRecordAudit(record: 'campaign' | 'publisher', id: number) {
  return useQuery({
    queryKey: ['audit', record, String(id)],
    queryFn: ({ signal }) => apiPages<AuditEntry>('/api/workspace/audit', { entity: record, entityId: String(id) }, { signal, maxPages: AUDIT_PAGES }),
  });
}
