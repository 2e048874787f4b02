/**
 * What a paused record's page says: who paused it and when (from the latest `paused` entry of the audit
 * record), the reason given (the record's `pauseReason`; for a record paused before the answers carried
 * it, the audit entry's), what the pause does, and how it ends.
 */
import { useRecordAudit, type RecordSeenBy } from '../hooks/record-audit';
import type { AuditEntry } from '../types';
import { actorWords } from './StatusHistory';
import { formatDateTime } from '../format';

export function latestPause(items: AuditEntry[]): AuditEntry | null {
  return items.find((item) => item.action === 'paused') ?? null;
}

const WHAT_IT_MEANS = {
  campaign: {
    owner: 'Publishers do not receive it, and links already sent with it no longer open your page. Only an administrator can activate it again; ask them, or create a replacement draft.',
    admin: 'Publishers do not receive it, and links already sent with it no longer open the destination. Activate it to resume.',
  },
  publisher: {
    owner: 'Its server key is refused (HTTP 401) for as long as the pause lasts, and links it already sent no longer open. The key is kept: it works again, unchanged, once an administrator approves the platform again. Ask them for the next step.',
    admin: 'Its server key is refused for as long as the pause lasts, and links it already sent no longer open. Approve it to resume; the owner keeps the same key.',
  },
} as const;

export function PausedNotice({ record, id, ownerAccountId, viewer, pauseReason }: RecordSeenBy & { pauseReason: string | null }) {
  const audit = useRecordAudit(record, id);
  const pause = audit.data ? latestPause(audit.data.items) : null;
  const reason = pauseReason ?? pause?.reason ?? null;
  const who = pause ? actorWords(pause.actorAccountId, viewer.accountId, ownerAccountId, viewer.admin) : null;
  const asOwner = viewer.accountId === ownerAccountId;
  return (
    <div className="notice paused-notice" data-testid="paused-notice">
      <p>
        <strong>{record === 'campaign' ? 'This campaign is paused' : 'This platform is paused'}</strong>
        {pause ? ` by ${who} on ${formatDateTime(pause.at)}.` : '.'}
      </p>
      {reason ? <p className="reason-text">
          Reason: <bdi dir="auto">{reason}</bdi>
        </p> : null}
      {pause && !reason ? <p className="help">No reason was given.</p> : null}
      <p>{WHAT_IT_MEANS[record][asOwner ? 'owner' : 'admin']}</p>
    </div>
  );
}
