import type { ReactNode } from 'react';

/**
 * A column's heading that sorts the table by it (the work tables, the figure tables, the report):
 * `aria-sort` says how the table is sorted now; the hint says what choosing it does.
 */
export function SortHeader({ label, active, direction, onSort, hint }: { label: ReactNode; active: boolean; direction: 'ascending' | 'descending'; onSort: () => void; hint: string }) {
  return (
    <th scope="col" aria-sort={active ? direction : 'none'}>
      <button type="button" className="sort-button" onClick={onSort} title={hint}>
        {label}
        <span aria-hidden="true">{active ? (direction === 'descending' ? ' ▼' : ' ▲') : ' ↕'}</span>
        <span className="visually-hidden">, {hint}</span>
      </button>
    </th>
  );
}
