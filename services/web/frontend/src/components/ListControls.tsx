/**
 * Above a workspace list: the search, the status filter and, for administrators, the owner, all answered
 * by the service. The status select keeps its label "Status".
 */
import { useEffect, useRef, useState } from 'react';
import type { ListState } from '../hooks/list-params';
import { statusWord } from '../status-words';

export function ListControls({
  state,
  onChange,
  statuses,
  searchHelp,
  noun,
  ownerFilter = false,
}: {
  state: ListState;
  onChange: (change: Partial<ListState>) => void;
  statuses: readonly string[];
  searchHelp: string;
  noun: string;
  /** offers the owner filter (administrators, who see every account's records) */
  ownerFilter?: boolean;
}) {
  // The box keeps what is typed: the address follows each key a moment later, and reading it back would
  // drop the keys typed meanwhile. The address wins when it changes while the box is not being typed in.
  const box = useRef<HTMLInputElement>(null);
  const [typed, setTyped] = useState(state.search);
  useEffect(() => {
    if (document.activeElement !== box.current) setTyped(state.search);
  }, [state.search]);
  return (
    <form className="filters" role="search" aria-label={`Find ${noun}`} onSubmit={(event) => event.preventDefault()}>
      <label>
        Search
        <input
          ref={box}
          type="search"
          dir="auto"
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
          <option value="">All</option>
          {statuses.map((value) => (
            <option key={value} value={value}>
              {statusWord(value)}
            </option>
          ))}
        </select>
      </label>
      {ownerFilter ? (
        <label>
          Owner account
          <input
            inputMode="numeric"
            value={state.owner}
            onChange={(event) => onChange({ owner: event.target.value.replace(/\D/g, '') })}
            placeholder="Any account"
            data-testid="list-owner"
          />
        </label>
      ) : null}
    </form>
  );
}
