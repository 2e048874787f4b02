/** Previous / next through a list shown `size` rows at a time, with where the reader is ("21–40 of 57"). */
/** `labels`: the two buttons' words, for lists that are not in time order. */
export function Pager({
  page,
  size,
  total,
  onPage,
  label,
  labels = ['← Newer', 'Older →'],
}: {
  page: number;
  size: number;
  total: number;
  onPage: (page: number) => void;
  label: string;
  labels?: readonly [string, string];
}) {
  if (total <= size) return null;
  const last = Math.ceil(total / size) - 1;
  const first = page * size + 1;
  const end = Math.min(total, first + size - 1);
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button button-secondary" onClick={() => onPage(page - 1)} disabled={page <= 0}>
        {labels[0]}
      </button>
      <span aria-live="polite">
        {first}–{end} of {total}
      </span>
      <button type="button" className="button button-secondary" onClick={() => onPage(page + 1)} disabled={page >= last}>
        {labels[1]}
      </button>
    </nav>
  );
}
