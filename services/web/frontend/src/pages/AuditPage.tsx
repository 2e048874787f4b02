import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { apiBody } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { LoadMore } from '../components/LoadMore';
import { formatDateTime } from '../format';
import { useAddressParams } from '../hooks/address-params';
import { useDebounced } from '../hooks/debounced';
import { usePageTitle } from '../hooks/page-title';
import { PAGE_SIZE, nextCursorOf, pagePath, type Page } from '../paged-list';
import { useAccount } from '../session';
import { AUDIT_ACTIONS, actionWords, entityWord, recordPath, statusWord } from '../status-words';
import type { AuditEntry } from '../types';

function RecordCell({ entry }: { entry: AuditEntry }) {
  const text = `${entityWord(entry.entity)} #${String(entry.entityId)}`;
  const path = recordPath(entry.entity, entry.entityId);
  return path ? <Link to={path}>{text}</Link> : <>{text}</>;
}

function change(entry: AuditEntry): string {
  if (entry.from === entry.to) return entry.to ? statusWord(entry.to) : '—';
  return `${entry.from ? statusWord(entry.from) : '—'} → ${entry.to ? statusWord(entry.to) : '—'}`;
}

/**
 * Who acted: the account's display name where it has one, with its id. An owner's records are changed by
 * the owner and by administrators: an owner reads "an administrator", as in a record's history.
 */
function whoActed(entry: AuditEntry, viewer: { accountId: string; admin: boolean }): string {
  if (!entry.actorAccountId) return 'system';
  if (!viewer.admin && entry.actorAccountId !== viewer.accountId) return 'an administrator';
  return entry.actorName && entry.actorName !== entry.actorAccountId ? `${entry.actorName} (${entry.actorAccountId})` : entry.actorAccountId;
}

const AUDIT_FILTERS = { entity: 'entity', entityId: 'id', action: 'action', from: 'from', to: 'to' } as const;

export function AuditPage() {
  const account = useAccount();
  usePageTitle('Audit record');
  // The filters live in the address, so a view of the audit can be shared and reloaded.
  const [filters, setFilters] = useAddressParams(AUDIT_FILTERS);
  const id = useDebounced(filters.entityId);
  const period = { from: filters.from, to: filters.to && filters.from && filters.to < filters.from ? '' : filters.to };
  // Newest first, a page at a time down to the oldest entry; the service filters by record, action and period.
  const asked = { entity: filters.entity, entityId: id, action: filters.action, ...period };
  const audit = useInfiniteQuery({
    queryKey: ['audit', asked],
    initialPageParam: null as string | null,
    getNextPageParam: (page: Page<AuditEntry>) => nextCursorOf(page),
    placeholderData: keepPreviousData,
    queryFn: ({ pageParam, signal }) => apiBody<Page<AuditEntry>>(pagePath('/api/workspace/audit', asked, pageParam, PAGE_SIZE), { signal }),
  });
  const filtered = Object.values(asked).some(Boolean);
  // Entries have no id: one is known by its place in the pages loaded.
  const items = (audit.data?.pages ?? []).flatMap((page, index) => page.items.map((item, row) => ({ item, key: `${index}-${row}` })));
  return (
    <section>
      <h1>Audit record</h1>
      <p className="help">{account.admin ? 'Every change of state and key rotation in the network, newest first.' : 'Changes of state and key rotations of your records, newest first.'}</p>
      <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Record type
          <select value={filters.entity} onChange={(event) => setFilters({ entity: event.target.value })}>
            <option value="">All</option>
            <option value="campaign">Campaigns</option>
            <option value="publisher">Platforms</option>
            <option value="placement">Placements</option>
            <option value="account">Accounts</option>
          </select>
        </label>
        <label>
          Record id
          <input inputMode="numeric" value={filters.entityId} onChange={(event) => setFilters({ entityId: event.target.value.trim() }, { replace: true })} />
        </label>
        <label>
          Action
          <select value={filters.action} onChange={(event) => setFilters({ action: event.target.value })}>
            <option value="">All</option>
            {AUDIT_ACTIONS.map((action) => (
              <option key={action} value={action}>
                {actionWords(action)}
              </option>
            ))}
          </select>
        </label>
        <label>
          From (UTC)
          <input type="date" value={filters.from} max={filters.to || undefined} onChange={(event) => setFilters({ from: event.target.value })} />
        </label>
        <label>
          To (UTC)
          <input type="date" value={filters.to} min={filters.from || undefined} onChange={(event) => setFilters({ to: event.target.value })} />
        </label>
        {filtered ? (
          <button type="button" className="link-button" onClick={() => setFilters({ entity: '', entityId: '', action: '', from: '', to: '' })}>
            Clear the filters
          </button>
        ) : null}
      </form>
      <ErrorMessage error={audit.error} />
      {audit.isPending ? (
        <p className="loading" role="status">
          Loading the audit record…
        </p>
      ) : null}
      {audit.data ? (
        items.length === 0 ? (
          <p data-testid="list-empty">{filtered ? 'No entries match the filters.' : 'No entries yet.'}</p>
        ) : (
          <div aria-busy={audit.isPlaceholderData}>
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
                {items.map(({ item, key }) => (
                  <tr key={key}>
                    <td data-label="When (UTC)">
                      <time dateTime={item.at}>{formatDateTime(item.at)}</time>
                    </td>
                    <td data-label="Who">
                      <bdi dir="auto">{whoActed(item, account)}</bdi>
                    </td>
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
          <LoadMore shown={items.length} hasMore={audit.hasNextPage} loading={audit.isFetchingNextPage} onMore={() => void audit.fetchNextPage()} noun={{ one: 'entry', many: 'entries' }} label="Older entries" />
          </div>
        )
      ) : null}
    </section>
  );
}
