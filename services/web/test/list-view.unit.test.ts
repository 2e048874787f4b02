import { expect } from 'chai';
import { listView, matchesSearch, sortOptions, type ListRecord } from '../frontend/src/list-view';

interface Row extends ListRecord {
  name: string;
}

const STATUSES = ['draft', 'submitted', 'active'] as const;
const SORTS = sortOptions<Row>('Name A–Z', (row) => row.name, STATUSES);
const row = (id: number, name: string, status: string, day: number): Row => ({ id, name, status, createdAt: `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z` });
const rows = [row(1, 'Zeta', 'active', 1), row(2, 'alpha', 'draft', 2), row(3, 'Émile', 'submitted', 3), row(4, 'Beta', 'active', 4)];
const state = { search: '', sort: '', status: '', page: 0 };

describe('workspace lists: search, sort, per-status counts and paging (issue 20)', () => {
  it('finds every word of the search, ignoring case and accents, and "#id"', () => {
    expect(matchesSearch('#3 Émile', 'emile')).to.equal(true);
    expect(matchesSearch('#3 Émile owner 9', 'EMILE 9')).to.equal(true);
    expect(matchesSearch('#3 Émile', 'emile 7')).to.equal(false);
    expect(listView(rows, { ...state, search: '#4' }, (r) => r.name, SORTS).rows.map((r) => r.id)).to.deep.equal([4]);
  });

  it('counts each status among the records the search found, and filters by status after counting', () => {
    const view = listView(rows, { ...state, status: 'active' }, (r) => r.name, SORTS);
    expect(view.counts).to.deep.equal({ '': 4, active: 2, draft: 1, submitted: 1 });
    expect(view.rows.map((r) => r.id)).to.deep.equal([4, 1]);
    expect(listView(rows, { ...state, search: 'beta' }, (r) => r.name, SORTS).counts).to.deep.equal({ '': 1, active: 1 });
  });

  it('sorts newest first by default, then oldest, by name (case-insensitive) or by status', () => {
    const ids = (sort: string) => listView(rows, { ...state, sort }, (r) => r.name, SORTS).rows.map((r) => r.id);
    expect(ids('')).to.deep.equal([4, 3, 2, 1]);
    expect(ids('oldest')).to.deep.equal([1, 2, 3, 4]);
    expect(ids('name')).to.deep.equal([2, 4, 3, 1]);
    expect(ids('status')).to.deep.equal([2, 3, 4, 1]);
    expect(ids('nonsense'), 'an unknown order is the default').to.deep.equal([4, 3, 2, 1]);
  });

  it('shows one page at a time and keeps a page beyond the end on the last page', () => {
    const many = Array.from({ length: 45 }, (_, index) => row(index + 1, `n${index + 1}`, 'draft', 1));
    const first = listView(many, { ...state, sort: 'oldest' }, (r) => r.name, SORTS);
    expect(first.rows).to.have.length(20);
    expect(first.total).to.equal(45);
    const third = listView(many, { ...state, sort: 'oldest', page: 2 }, (r) => r.name, SORTS);
    expect(third.rows.map((r) => r.id)).to.deep.equal([41, 42, 43, 44, 45]);
    expect(listView(many, { ...state, page: 9 }, (r) => r.name, SORTS).page).to.equal(2);
    expect(listView([], { ...state, page: 3 }, (r: Row) => r.name, SORTS)).to.deep.include({ rows: [], total: 0, page: 0 });
  });
});
