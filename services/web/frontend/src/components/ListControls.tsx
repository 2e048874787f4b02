/**
 * Above a workspace list: search, the status filter with how many records each status has (within the
 * search), and the order. The status select keeps its label "Status".
 */
import { useEffect, useRef, useState } from 'react';
import type { ListState, SortOption } from '../list-view';
import { formatCount } from '../format';
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
  // The box keeps what is typed: the address follows each key a moment later, and reading it back would
  // drop the keys typed meanwhile. The address wins when it changes while the box is not being typed in.
  const box = useRef<HTMLInputElement>(null);
  const [typed, setTyped] = useState(state.search);
  useEffect(() => {
    if (document.activeElement !== box.current) setTyped(state.search);
  }, [state.search]);
  const countsLine = statuses
    .filter((value) => (counts[value] ?? 0) > 0)
    .map((value) => `${statusWord(value)}: ${formatCount(counts[value] ?? 0)}`)
    .join(' · ');
  return (
    <>
      <form className="filters" role="search" aria-label={`Find ${noun}`} onSubmit={(event) => event.preventDefault()}>
        <label>
          Search
          <input
            ref={box}
            type="search"
            value={typed}
            onChange={(event) => {
              setTyped(event.target.value);
              onChange({ search: event.target.value });
            }}
            placeholder={searchHelp}
            data-testid="list-search"
          />
        </label>
        <label>
          Status
          <select value={state.status} onChange={(event) => onChange({ status: event.target.value })}>
            <option value="">All ({formatCount(counts[''] ?? 0)})</option>
            {statuses.map((value) => (
              <option key={value} value={value}>
                {statusWord(value)} ({formatCount(counts[value] ?? 0)})
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
      {/* Only what there is: with none, the list itself says so once (no "none match" beside "none yet"). */}
      {countsLine ? (
        <p className="status-counts help" data-testid="status-counts">
          {countsLine}
        </p>
      ) : null}
    </>
  );
}
