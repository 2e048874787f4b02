/**
 * Above a workspace list: search, the status filter with how many records each status has (within the
 * search), and the order. The status select keeps its label "Status".
 */
import type { ListState, SortOption } from '../list-view';
import { statusWord } from '../status-words';

export function ListControls<T>({
  state,
  onChange,
  statuses,
  counts,
  sorts,
  searchHelp,
  noun,
}: {
  state: ListState;
  onChange: (change: Partial<ListState>) => void;
  statuses: readonly string[];
  counts: Record<string, number>;
  sorts: Array<SortOption<T>>;
  searchHelp: string;
  noun: string;
}) {
  return (
    <>
      <form className="filters" role="search" aria-label={`Find ${noun}`} onSubmit={(event) => event.preventDefault()}>
        <label>
          Search
          <input type="search" value={state.search} onChange={(event) => onChange({ search: event.target.value })} placeholder={searchHelp} data-testid="list-search" />
        </label>
        <label>
          Status
          <select value={state.status} onChange={(event) => onChange({ status: event.target.value })}>
            <option value="">All ({counts[''] ?? 0})</option>
            {statuses.map((value) => (
              <option key={value} value={value}>
                {statusWord(value)} ({counts[value] ?? 0})
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort by
          <select value={state.sort || sorts[0]?.id} onChange={(event) => onChange({ sort: event.target.value === sorts[0]?.id ? '' : event.target.value })}>
            {sorts.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <p className="status-counts help" data-testid="status-counts">
        {statuses
          .filter((value) => (counts[value] ?? 0) > 0)
          .map((value) => `${statusWord(value)}: ${counts[value]}`)
          .join(' · ') || `No ${noun} match.`}
      </p>
    </>
  );
}
