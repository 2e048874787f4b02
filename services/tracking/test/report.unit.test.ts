import { expect } from 'chai';
import { csvOf, groupRows, pageOfRows, parseReportQuery, type Cell, type ReportQuery } from '../src/domain/report';

const NOW = new Date('2026-04-03T12:00:00Z');
const cell = (campaignId: number, publisherId: number, day: string, adRequests: number, clickedLinks = 0): Cell => ({ campaignId, publisherId, day, counts: { adRequests, clickedLinks, unfilledAdRequests: 9 } });

describe('tracking: the report of the totals (pure)', () => {
  it('reads a query with its defaults: the first dimension when it is time, else adRequests', () => {
    expect(parseReportQuery({ by: 'day,campaign' }, NOW)).to.deep.equal({ ok: true, query: { by: ['day', 'campaign'], filter: {}, sort: 'day', limit: 50, after: null, csv: false } });
    const parsed = parseReportQuery({ by: 'language', format: 'csv', limit: '7', campaignId: '3' }, NOW);
    expect(parsed).to.deep.equal({ ok: true, query: { by: ['language'], filter: { campaignId: 3 }, sort: 'adRequests', limit: 7, after: null, csv: true } });
  });

  it('groups cells into rows by the campaign traits, an unknown campaign under null, leaving the unfilled requests out', () => {
    const traits = (id: number) => (id === 1 ? { language: 'en', format: 'bot' } : id === 2 ? { language: 'de', format: 'bot' } : undefined);
    const query: Pick<ReportQuery, 'by' | 'sort'> = { by: ['format', 'language'], sort: 'format' };
    const { rows, totals } = groupRows([cell(1, 5, '2026-04-01', 2), cell(2, 5, '2026-04-01', 1, 1), cell(3, 6, '2026-04-02', 4), cell(1, 6, '2026-04-02', 3), cell(4, 6, '2026-04-02', 0)], query, traits);
    expect(rows).to.deep.equal([
      { format: null, language: null, adRequests: 4, confirmedDeliveries: 0, clickedLinks: 0 },
      { format: 'bot', language: 'de', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 1 },
      { format: 'bot', language: 'en', adRequests: 5, confirmedDeliveries: 0, clickedLinks: 0 },
    ]);
    expect(totals).to.deep.equal({ adRequests: 10, confirmedDeliveries: 0, clickedLinks: 1 });
    expect(csvOf(rows, query.by)).to.equal('format,language,adRequests,confirmedDeliveries,clickedLinks\r\n,,4,0,0\r\nbot,de,1,0,1\r\nbot,en,5,0,0\r\n');
  });

  it('pages through ties of a figure by the dimensions, each row once, with a cursor bound to the dimensions and sort', () => {
    const query = { by: ['campaign', 'day'] as ReportQuery['by'], sort: 'adRequests' as const, limit: 2, after: null };
    const { rows } = groupRows([cell(2, 1, '2026-04-01', 1), cell(1, 1, '2026-04-02', 1), cell(1, 1, '2026-04-01', 1), cell(3, 1, '2026-04-01', 5)], query, () => undefined);
    const first = pageOfRows(rows, query);
    expect(first.rows.map((row) => [row.campaignId, row.day])).to.deep.equal([[3, '2026-04-01'], [1, '2026-04-01']]);
    const parsed = parseReportQuery({ by: 'campaign,day', limit: '2', cursor: first.nextCursor }, NOW);
    if (!parsed.ok) throw new Error(parsed.code);
    const second = pageOfRows(rows, parsed.query);
    expect(second).to.deep.equal({ rows: [rows[2], rows[3]], nextCursor: null });
    expect(parseReportQuery({ by: 'campaign,day', sort: 'clickedLinks', cursor: first.nextCursor }, NOW)).to.include({ ok: false, code: 'invalid_cursor' });
    expect(parseReportQuery({ by: 'day,campaign', cursor: first.nextCursor }, NOW)).to.include({ ok: false, code: 'invalid_cursor' });
  });

  it('quotes a CSV value holding a comma or a quote', () => {
    expect(csvOf([{ language: 'a,"b"', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 }], ['language'])).to.equal('language,adRequests,confirmedDeliveries,clickedLinks\r\n"a,""b""",1,0,0\r\n');
  });
});
