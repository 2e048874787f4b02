import { expect } from 'chai';
import { clickThroughRate, confirmationRate, csvFileName, daysCsv, presetOf, presetRange } from '../frontend/src/stats-view';
import { actorWords } from '../frontend/src/components/StatusHistory';

describe('a record\'s totals: rates, presets and CSV', () => {
  it('computes click-through as clicked / confirmed and confirmation as confirmed / ad requests, one decimal', () => {
    const totals = { adRequests: 54, confirmedDeliveries: 40, clickedLinks: 1 };
    expect(clickThroughRate(totals)).to.equal('2.5%');
    expect(confirmationRate(totals), '40 / 54 is 74.07%').to.equal('74.1%');
    expect(confirmationRate({ adRequests: 23_775, confirmedDeliveries: 23_769 }), 'never rounded up to a whole not reached').to.equal('99.9%');
    expect(confirmationRate({ adRequests: 3, confirmedDeliveries: 3 })).to.equal('100.0%');
  });

  it('has no rate before there is anything to divide by', () => {
    expect(clickThroughRate({ confirmedDeliveries: 0, clickedLinks: 0 })).to.equal(null);
    expect(confirmationRate({ adRequests: 0, confirmedDeliveries: 0 })).to.equal(null);
  });

  it('turns presets into UTC date ranges ending today, whatever the hour', () => {
    const lateEvening = new Date('2026-03-01T23:59:59.000Z');
    expect(presetRange('today', lateEvening)).to.deep.equal({ from: '2026-03-01', to: '2026-03-01' });
    expect(presetRange('7d', lateEvening)).to.deep.equal({ from: '2026-02-23', to: '2026-03-01' });
    expect(presetRange('30d', new Date('2026-03-01T00:00:00.000Z'))).to.deep.equal({ from: '2026-01-31', to: '2026-03-01' });
    expect(presetRange('all', lateEvening)).to.deep.equal({ from: '', to: '' });
    expect(presetOf({ from: '2026-02-23', to: '2026-03-01' }, lateEvening)).to.equal('7d');
    expect(presetOf({ from: '2026-02-24', to: '2026-03-01' }, lateEvening)).to.equal(null);
  });

  it('writes the per-day rows as CSV with a header and CRLF line ends, and names the file after the range', () => {
    const days = [
      { date: '2026-03-01', adRequests: 3, confirmedDeliveries: 2, clickedLinks: 1 },
      { date: '2026-03-02', adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 },
    ];
    expect(daysCsv(days)).to.equal('date,ad_requests,confirmed_deliveries,clicked_links\r\n2026-03-01,3,2,1\r\n2026-03-02,0,0,0\r\n');
    expect(daysCsv([])).to.equal('date,ad_requests,confirmed_deliveries,clicked_links\r\n');
    expect(csvFileName('campaign-7', { from: '', to: '' }, days)).to.equal('pilot-campaign-7-2026-03-01-to-2026-03-02.csv');
    expect(csvFileName('platform-3', { from: '2026-02-01', to: '2026-02-07' }, [])).to.equal('pilot-platform-3-2026-02-01-to-2026-02-07.csv');
  });

  it('names who changed a record as its viewer should read it', () => {
    expect(actorWords('5', '5', '5', false)).to.equal('you');
    expect(actorWords('9', '5', '5', false)).to.equal('an administrator');
    expect(actorWords('9', '1', '5', true)).to.equal('account 9');
    expect(actorWords('5', '1', '5', true)).to.equal('the owner (account 5)');
    expect(actorWords(null, '1', '5', true)).to.equal('the system');
  });
});
