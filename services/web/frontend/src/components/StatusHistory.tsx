/**
 * A campaign's or a platform's history from the audit record: every change of status and key,
 * newest first, with who made it and the reason given. Owners read "you" and "an administrator".
 */
import { useRecordAudit, type RecordSeenBy } from '../hooks/record-audit';
import { actionWords, statusWord } from '../status-words';
import { ErrorMessage } from './ErrorMessage';
import { formatDateTime } from '../format';

export function actorWords(actorAccountId: string | null, viewerAccountId: string, ownerAccountId: string, viewerIsAdmin: boolean): string {
  if (actorAccountId === null) return 'the system';
  if (actorAccountId === viewerAccountId) return 'you';
  if (actorAccountId === ownerAccountId) return viewerIsAdmin ? `the owner (account ${actorAccountId})` : 'the owner';
  return viewerIsAdmin ? `account ${actorAccountId}` : 'an administrator';
}

export function StatusHistory({ record, id, ownerAccountId, viewer }: RecordSeenBy) {
  const audit = useRecordAudit(record, id);
  return (
    <section className="key-panel" data-testid="status-history" aria-labelledby={`${record}-${id}-history`}>
      <h2 id={`${record}-${id}-history`}>History</h2>
      <ErrorMessage error={audit.error} />
      {audit.isPending ? (
        <p className="loading" role="status">
          Loading the history…
        </p>
      ) : null}
      {audit.data ? (
        audit.data.items.length === 0 ? (
          <p>No changes recorded yet.</p>
        ) : (
          <ol className="history">
            {audit.data.items.map((item, index) => (
              <li key={`${item.at}-${index}`}>
                <time dateTime={item.at}>{formatDateTime(item.at)}</time>{' '}
                <strong>{actionWords(item.action)}</strong>
                {(item.from || item.to) && item.from !== item.to ? (
                  <span className="help">
                    {' '}
                    ({item.from ? statusWord(item.from) : 'new'} → {item.to ? statusWord(item.to) : '—'})
                  </span>
                ) : null}{' '}
                by {actorWords(item.actorAccountId, viewer.accountId, ownerAccountId, viewer.admin)}
                {item.reason ? <span className="reason-text">
                    : “<bdi dir="auto">{item.reason}</bdi>”
                  </span> : null}
              </li>
            ))}
          </ol>
        )
      ) : null}
    </section>
  );
}
