/** The breakdown table with its table library, loaded when a page shows one (the first screen stays small). */
import { lazy, Suspense } from 'react';
import type { BreakdownTableProps } from './BreakdownTable';

const BreakdownTable = lazy(() => import('./BreakdownTable').then((module) => ({ default: module.BreakdownTable })));

export function LazyBreakdownTable(props: BreakdownTableProps) {
  return (
    <Suspense
      fallback={
        <p className="loading" role="status">
          Loading the figures…
        </p>
      }
    >
      <BreakdownTable {...props} />
    </Suspense>
  );
}
