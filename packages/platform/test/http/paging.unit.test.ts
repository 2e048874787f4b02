import { HttpError } from '../../src/problems';
import { expect } from 'chai';
import { auditNarrowingOf, auditNarrowingParams, decodeCursor, encodeCursor, listIdsOf, listOwnerOf, listReadOf, pageLimitOf, pageOf, searchPatternOf, withCount } from '../../src/http';

function refusal(work: () => unknown): HttpError {
  try {
    work();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('paging: limits, cursors, search text and owner filter', () => {
  it('reads limit 1 to 100, 50 when absent or empty, anything else invalid_limit', () => {
    expect(pageLimitOf(undefined)).to.equal(50);
    expect(pageLimitOf('')).to.equal(50);
    expect(pageLimitOf('1')).to.equal(1);
    expect(pageLimitOf('100')).to.equal(100);
    expect(pageLimitOf('101', 101)).to.equal(101);
    for (const bad of ['0', '101', '-1', '1.5', '1e2', ' 5', '05', 'ten', ['5', '6'], '99999999999999999999']) {
      const error = refusal(() => pageLimitOf(bad));
      expect([error.status, error.code], String(bad)).to.deep.equal([400, 'invalid_limit']);
    }
  });

  it('round-trips a position through an opaque cursor, and refuses whatever is not one', () => {
    const at = new Date('2026-05-01T10:00:00.123Z');
    const cursor = encodeCursor([at, 42]);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, ['time', 'id'])).to.deep.equal([at, 42]);
    expect(decodeCursor(encodeCursor([at, 'campaign/42:3']), ['time', 'key'])).to.deep.equal([at, 'campaign/42:3']);
    expect(decodeCursor(undefined, ['time', 'id'])).to.equal(null);
    expect(decodeCursor('', ['time', 'id'])).to.equal(null);
    const notCursors: unknown[] = [
      'x',
      'not a cursor',
      `${cursor}=`,
      cursor.slice(0, -2),
      ['a', 'b'],
      encodeCursor([at, 'campaign/42:3']), // a cursor of another shape
      encodeCursor([at]),
      encodeCursor([at, 0]),
      encodeCursor([at, 1.5]),
      encodeCursor(['2026-05-01', 42]),
      Buffer.from(JSON.stringify(['2026-05-01T10:00:00Z', 42])).toString('base64url'), // not the canonical time
      Buffer.from(JSON.stringify({ at: '2026-05-01T10:00:00.123Z', id: 42 })).toString('base64url'),
      Buffer.from('{"broken').toString('base64url'),
      'A'.repeat(600),
    ];
    for (const value of notCursors) {
      const error = refusal(() => decodeCursor(value, ['time', 'id']));
      expect([error.status, error.code], String(value)).to.deep.equal([400, 'invalid_cursor']);
    }
  });

  it('cuts a page from one item more than its limit, with the cursor of its last item', () => {
    const read = [5, 4, 3];
    const page = pageOf(read, 2, (n) => [new Date(Date.UTC(2026, 0, n)), n], (n) => ({ n }));
    expect(page.items).to.deep.equal([{ n: 5 }, { n: 4 }]);
    expect(decodeCursor(page.nextCursor, ['time', 'id'])).to.deep.equal([new Date(Date.UTC(2026, 0, 4)), 4]);
    expect(pageOf([5, 4], 2, (n) => [new Date(0), n], (n) => n)).to.deep.equal({ items: [5, 4], nextCursor: null });
    expect(pageOf([], 2, (n: number) => [new Date(0), n], (n) => n)).to.deep.equal({ items: [], nextCursor: null });
  });

  it('matches the search text anywhere, case-insensitively and literally, and bounds its length', () => {
    const pattern = searchPatternOf('Sale (50%) a.b*') as RegExp;
    expect(pattern.test('big SALE (50%) A.B* now')).to.equal(true);
    expect(pattern.test('Sale (50%) axb')).to.equal(false);
    expect(searchPatternOf(undefined)).to.equal(null);
    expect(searchPatternOf('')).to.equal(null);
    expect(searchPatternOf('x'.repeat(100))).to.be.instanceOf(RegExp);
    for (const bad of ['x'.repeat(101), ['a', 'b']]) {
      const error = refusal(() => searchPatternOf(bad));
      expect([error.status, error.code]).to.deep.equal([400, 'invalid_search']);
    }
  });

  it('lets an administrator name any owner, and an owner only itself', () => {
    const admin = { accountId: '1', admin: true };
    const owner = { accountId: '7', admin: false };
    expect(listOwnerOf(undefined, admin)).to.equal(null);
    expect(listOwnerOf('42', admin)).to.equal('42');
    expect(listOwnerOf(undefined, owner)).to.equal('7');
    expect(listOwnerOf('', owner)).to.equal('7');
    expect(listOwnerOf('7', owner)).to.equal('7');
    const other = refusal(() => listOwnerOf('42', owner));
    expect([other.status, other.code]).to.deep.equal([403, 'admin_only']);
    for (const bad of ['abc', '-1', ['1', '2'], '1'.repeat(21)]) {
      const error = refusal(() => listOwnerOf(bad, admin));
      expect([error.status, error.code]).to.deep.equal([400, 'invalid_owner_account_id']);
    }
  });
});

describe('paging: the work tables\' order, ids and count, and the audit\'s narrowing', () => {
  it('reads sort, cursor, limit and count together, refusing each bad one with its code', () => {
    expect(listReadOf({})).to.deep.equal({ order: 'newest', after: null, limit: 50, count: false });
    expect(listReadOf({ sort: 'oldest', limit: '25', count: 'true' })).to.include({ order: 'oldest', limit: 25, count: true });
    for (const [query, code] of [[{ sort: 'name' }, 'invalid_sort'], [{ count: 'yes' }, 'invalid_count'], [{ count: ['true', 'true'] }, 'invalid_count']] as const) {
      expect(refusal(() => listReadOf(query)).code, JSON.stringify(query)).to.equal(code);
    }
  });

  it('takes up to 100 ids once each, and nothing else', () => {
    expect(listIdsOf(undefined)).to.equal(null);
    expect(listIdsOf('3,1,3')).to.deep.equal([3, 1]);
    for (const bad of ['1,,2', '0', 'a', '1.5', Array.from({ length: 101 }, (_, index) => index + 1).join(','), ['1', '2']]) {
      expect(refusal(() => listIdsOf(bad)).code, String(bad)).to.equal('invalid_ids');
    }
  });

  it('adds the count to a page only when one was made', () => {
    expect(withCount({ items: [], nextCursor: null }, null)).to.deep.equal({ items: [], nextCursor: null });
    expect(withCount({ items: [], nextCursor: null }, { count: 10_000, capped: true })).to.deep.equal({ items: [], nextCursor: null, total: 10_000, totalCapped: true });
  });

  it('narrows the audit to an action and UTC days in order, and passes on only what is set', () => {
    expect(auditNarrowingOf({ action: 'key_rotated', from: '2026-02-28', to: '2026-03-01' })).to.deep.equal({ action: 'key_rotated', from: '2026-02-28', to: '2026-03-01' });
    for (const [query, code] of [[{ action: 'Approved' }, 'invalid_action'], [{ action: ['a', 'b'] }, 'invalid_action'], [{ from: '2026-02-30' }, 'invalid_date'], [{ to: '2026-1-1' }, 'invalid_date'], [{ from: '2026-03-02', to: '2026-03-01' }, 'invalid_date_range']] as const) {
      expect(refusal(() => auditNarrowingOf(query)).code, JSON.stringify(query)).to.equal(code);
    }
    const params = new URLSearchParams();
    auditNarrowingParams({ action: null, from: '2026-03-01', to: null }, params);
    expect(params.toString()).to.equal('from=2026-03-01');
  });
});
