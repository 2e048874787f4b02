import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { apiPages } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { Pager } from '../components/Pager';
import { usePageTitle } from '../hooks/page-title';
import { AUDIT_PAGES } from '../hooks/record-audit';
import { useAccount } from '../session';
import { actionWords, entityWord, recordPath, statusWord } from '../status-words';
import type { AuditEntry } from '../types';
import { formatDateTime } from '../format';

export const AUDIT_PAGE_SIZE = 25;

function RecordCell({ entry }: { entry: AuditEntry }) {
  const text = `${entityWord(entry.entity)} #${String(entry.entityId)}`;
  const path = recordPath(entry.entity, entry.entityId);
  return path ? <Link to={path}>{text}</Link> : <>{text}</>;
}

function change(entry: AuditEntry): string {
  if (entry.from === entry.to) return entry.to ? statusWord(entry.to) : '—';
  return `${entry.from ? statusWord(entry.from) : '—'} → ${entry.to ? statusWord(entry.to) : '—'}`;
}

export function AuditPage() {
  const account = useAccount();
  usePageTitle('Audit record');
  const [entity, setEntity] = useState('');
  const [entityId, setEntityId] = useState('');
  const [page, setPage] = useState(0);
  const audit = useQuery({
    queryKey: ['audit', entity, entityId],
    queryFn: ({ signal }) => apiPages<AuditEntry>('/api/workspace/audit', { entity, entityId }, { signal, maxPages: AUDIT_PAGES }),
  });
  return (
    <section>
      <h1>Audit record</h1>
      <p className="help">{account.admin ? 'Every change of state and key rotation in the network, newest first.' : 'Changes of state and key rotations of your records, newest first.'}</p>
      <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Record type
          <select value={entity} onChange={(event) => {
              setEntity(event.target.value);
              setPage(0);
            }}>
            <option value="">All</option>
            <option value="campaign">Campaigns</option>
            <option value="publisher">Platforms</option>
            <option value="placement">Placements</option>
          </select>
        </label>
        <label>
          Record id
          <input inputMode="numeric" value={entityId} onChange={(event) => {
              setEntityId(event.target.value.trim());
              setPage(0);
            }} />
        </label>
      </form>
      <ErrorMessage error={audit.error} />
      {audit.isPending ? (
        <p className="loading" role="status">
          Loading the audit record…
        </p>
      ) : null}
      {audit.data ? (
        audit.data.items.length === 0 ? (
          <p>No entries.</p>
        ) : (
          <>
          <div className="table-wrap">
            <table data-testid="audit-table" className="stacked">
              <thead>
                <tr>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">Who</th>
                  <th scope="col">Record</th>
                  <th scope="col">Action</th>
                  <th scope="col">Status</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {audit.data.items.slice(page * AUDIT_PAGE_SIZE, (page + 1) * AUDIT_PAGE_SIZE).map((item, index) => (
                  <tr key={`${item.at}-${item.entity}-${item.entityId}-${index}`}>
                    <td data-label="When (UTC)">
                      <time dateTime={item.at}>{formatDateTime(item.at)}</time>
                    </td>
                    <td data-label="Who">{item.actorAccountId ?? 'system'}</td>
                    <td data-label="Record">
                      <RecordCell entry={item} />
                    </td>
                    <td data-label="Action">{actionWords(item.action)}</td>
                    <td data-label="Status">{change(item)}</td>
                    <td data-label="Reason">{item.reason ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} size={AUDIT_PAGE_SIZE} total={audit.data.items.length} onPage={setPage} label="Pages of the audit record" />
          </>
        )
      ) : null}
    </section>
  );
}
