/** Previous / next through a list shown `size` rows at a time, with where the reader is ("21–40 of 57"). */
export function Pager({ page, size, total, onPage, label }: { page: number; size: number; total: number; onPage: (page: number) => void; label: string }) {
  if (total <= size) return null;
  const last = Math.ceil(total / size) - 1;
  const first = page * size + 1;
  const end = Math.min(total, first + size - 1);
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button button-secondary" onClick={() => onPage(page - 1)} disabled={page <= 0}>
        ← Newer
      </button>
      <span aria-live="polite">
        {first}–{end} of {total}
      </span>
      <button type="button" className="button button-secondary" onClick={() => onPage(page + 1)} disabled={page >= last}>
        Older →
      </button>
    </nav>
  );
}
