import { expect } from 'chai';
import { firstKeptHourlyDay, grainHoursOf, hourFieldOf, hoursOfDays, parseHourField } from '../src/hourly-layout';
import { dayPartsOf, withHourParts, type DayHours } from '../src/hourly-store';
import { grainDaysOf } from '../src/grain-days';

/** An interval not claimed yet: Redis reports it under the least number its fold will have, above every fold applied. */
const OPEN_INTERVAL = 1_775_000_000_000;

describe('hourly figures', () => {
  it('names the hour field of a fact by the UTC hour of its instant, and reads it back', () => {
    expect(hourFieldOf(new Date('2026-03-08T23:59:59.999Z'), 'adRequests')).to.equal('2026-03-08T23|adRequests');
    expect(parseHourField('2026-03-08T23|adRequests')).to.deep.equal({ day: '2026-03-08', hour: '23', kind: 'adRequests' });
    expect(parseHourField('2026-03-08|adRequests')).to.equal(null);
  });

  it('lists every hour of the days of a range, across a month', () => {
    const hours = hoursOfDays('2026-02-28', '2026-03-01');
    expect(hours).to.have.length(48);
    expect(hours[0]).to.equal('2026-02-28T00:00:00.000Z');
    expect(hours[24]).to.equal('2026-03-01T00:00:00.000Z');
    expect(hours[47]).to.equal('2026-03-01T23:00:00.000Z');
  });

  it('keeps 35 days of hours: the first kept day is 34 days before today', () => {
    expect(firstKeptHourlyDay(new Date('2026-03-10T12:00:00Z'))).to.equal('2026-02-04');
  });

  it('folds the hour fields of a batch into a document per grain and day, once, leaving the day fields and breakdowns out', () => {
    const folds = [
      {
        seq: 4,
        counts: new Map([
          ['all', new Map([['2026-03-08|adRequests', 3], ['2026-03-08T09|adRequests', 2], ['2026-03-09T00|adRequests', 1]])],
          ['by-campaign@all', new Map([['2026-03-08|adRequests|5', 3]])],
        ]),
      },
      { seq: 5, counts: new Map([['all', new Map([['2026-03-08T09|confirmedDeliveries', 1]])]]) },
    ];
    const documents = dayPartsOf(folds);
    expect([...documents.keys()]).to.deep.equal(['all|2026-03-08', 'all|2026-03-09']);
    const stored: DayHours = { _id: 'all|2026-03-08', grain: 'all', day: '2026-03-08', startsAt: new Date('2026-03-08T00:00:00Z'), lastFold: 4, hours: { '09': { adRequests: 2 } } };
    expect(withHourParts('all|2026-03-08', documents.get('all|2026-03-08')!, stored)).to.deep.equal({ ...stored, lastFold: 5, hours: { '09': { adRequests: 2, confirmedDeliveries: 1 } } });
    expect(withHourParts('all|2026-03-08', documents.get('all|2026-03-08')!, { ...stored, lastFold: 5 })).to.equal(null);
  });

  it('adds what Redis holds that the documents lack, and the day reader skips hour fields', () => {
    const parts = [
      { fold: 4, fields: new Map([['2026-03-08T09|adRequests', 2]]) },
      { fold: OPEN_INTERVAL, fields: new Map([['2026-03-08T10|adRequests', 1], ['2026-03-08|adRequests', 1]]) },
    ];
    expect(grainHoursOf({ hours: { '2026-03-08T09': { adRequests: 2 } }, lastFolds: { '2026-03-08': 4 } }, parts)).to.deep.equal({
      '2026-03-08T09': { adRequests: 2 },
      '2026-03-08T10': { adRequests: 1 },
    });
    expect(grainHoursOf(undefined, parts)['2026-03-08T09']).to.deep.equal({ adRequests: 2 });
    expect(grainDaysOf(undefined, parts)).to.deep.equal({ '2026-03-08': { adRequests: 1 } });
  });
});
