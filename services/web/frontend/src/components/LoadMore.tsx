/** The end of a paged list: how many rows are shown, and a button for the next page while there is one. */
import { countOf } from '../format';

export function LoadMore({ shown, hasMore, loading, onMore, noun, label = 'Load more' }: { shown: number; hasMore: boolean; loading: boolean; onMore: () => void; noun: { one: string; many: string }; label?: string }) {
  return (
    <nav className="pager" aria-label={`More ${noun.many}`}>
      <span aria-live="polite" data-testid="shown-count">
        {countOf(shown, noun)} shown{hasMore ? '' : shown === 1 ? ', the only one' : ', all of them'}
      </span>
      {hasMore ? (
        <button type="button" className="button button-secondary" onClick={onMore} disabled={loading} aria-busy={loading}>
          {loading ? 'Loading…' : label}
        </button>
      ) : null}
    </nav>
  );
}
