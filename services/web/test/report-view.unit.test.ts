import { expect } from 'chai';
import { dimensionsOf, periodOf, sortOf } from '../frontend/src/report-view';

describe('the report page\'s address read into a report the service accepts', () => {
  it('keeps known dimensions once, at most three, never the day with the hour, and the day when none is left', () => {
    expect(dimensionsOf('day,campaign,language')).to.deep.equal(['day', 'campaign', 'language']);
    expect(dimensionsOf('campaign,campaign,format,publisher,language')).to.deep.equal(['campaign', 'format', 'publisher']);
    expect(dimensionsOf('hour,day,publisher')).to.deep.equal(['hour', 'publisher']);
    expect(dimensionsOf('week,')).to.deep.equal(['day']);
    expect(dimensionsOf('')).to.deep.equal(['day']);
  });

  it('sorts by a figure or a dimension shown, else by time when it comes first, else by requests', () => {
    expect(sortOf('clickedLinks', ['campaign'])).to.equal('clickedLinks');
    expect(sortOf('language', ['campaign', 'language'])).to.equal('language');
    expect(sortOf('language', ['day', 'campaign'])).to.equal('day');
    expect(sortOf('', ['campaign'])).to.equal('adRequests');
  });

  it('takes a preset or custom dates in order, and keeps a report by hour to the last 7 days', () => {
    const now = new Date('2026-05-20T10:00:00Z');
    expect(periodOf('7d', '', '', false, now)).to.deep.equal({ from: '2026-05-14', to: '2026-05-20', clipped: false });
    expect(periodOf(null, '2026-01-01', '2026-03-31', false, now)).to.deep.equal({ from: '2026-01-01', to: '2026-03-31', clipped: false });
    expect(periodOf(null, '2026-03-31', '2026-01-01', false, now), 'dates out of order: the default').to.deep.equal({ from: '2026-05-14', to: '2026-05-20', clipped: false });
    expect(periodOf('30d', '', '', true, now)).to.deep.equal({ from: '2026-05-14', to: '2026-05-20', clipped: true });
    expect(periodOf('all', '', '', true, now)).to.deep.equal({ from: '2026-05-14', to: '2026-05-20', clipped: false });
    expect(periodOf(null, '2026-05-01', '2026-05-07', true, now)).to.deep.equal({ from: '2026-05-01', to: '2026-05-07', clipped: false });
  });
});
