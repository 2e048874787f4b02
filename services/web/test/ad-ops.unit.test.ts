import { expect } from 'chai';
import { breakdownRows, changeWords, previousRange } from '../frontend/src/breakdown-view';
import { matchingChoices } from '../frontend/src/combobox-logic';
import { dayHours, hoursCsv } from '../frontend/src/hourly';
import { nextCursorOf, pagedItems, pagePath } from '../frontend/src/paged-list';
import { approveThenActivate, historyWords, moveIndex, shortcutOf, type KeyPress } from '../frontend/src/review-logic';

describe('paged workspace calls', () => {
  it('asks for a page with the filters that have a value, the size and the cursor', () => {
    expect(pagePath('/api/workspace/campaigns', { status: 'submitted', q: '', ownerAccountId: undefined }, null, 25)).to.equal('/api/workspace/campaigns?status=submitted&limit=25');
    expect(pagePath('/api/workspace/audit', { entity: 'campaign' }, 'abc+/=', 25)).to.equal('/api/workspace/audit?entity=campaign&limit=25&cursor=abc%2B%2F%3D');
  });

  it('shows the rows of the pages loaded, each once, and knows when the last page is reached', () => {
    const pages = [
      { items: [{ id: 3 }, { id: 2 }], nextCursor: 'c1' },
      { items: [{ id: 2 }, { id: 1 }], nextCursor: null },
    ];
    expect(pagedItems(pages, (item) => item.id).map((item) => item.id)).to.deep.equal([3, 2, 1]);
    expect(pagedItems(undefined, (item: { id: number }) => item.id)).to.deep.equal([]);
    expect(nextCursorOf(pages[0]!)).to.equal('c1');
    expect(nextCursorOf(pages[1]!)).to.equal(undefined);
  });
});

describe('the previous period and the change figures', () => {
  it('is the period of equal length just before', () => {
    expect(previousRange({ from: '2026-05-01', to: '2026-05-07' })).to.deep.equal({ from: '2026-04-24', to: '2026-04-30' });
    expect(previousRange({ from: '2026-03-01', to: '2026-03-01' })).to.deep.equal({ from: '2026-02-28', to: '2026-02-28' });
    expect(previousRange({ from: '2026-01-01', to: '2026-01-30' })).to.deep.equal({ from: '2025-12-02', to: '2025-12-31' });
  });

  it('has none for all time or a range out of order', () => {
    expect(previousRange({ from: '', to: '' })).to.equal(null);
    expect(previousRange({ from: '2026-05-07', to: '2026-05-01' })).to.equal(null);
    expect(previousRange({ from: 'yesterday', to: '2026-05-01' })).to.equal(null);
  });

  it('words a change, a new figure, nothing in both periods and an unknown previous value', () => {
    expect(changeWords(125, 100)).to.equal('+25.0%');
    expect(changeWords(50, 200)).to.equal('−75.0%');
    expect(changeWords(7, 0)).to.equal('new');
    expect(changeWords(0, 0)).to.equal('–');
    expect(changeWords(7, null)).to.equal(null);
  });

  it('builds rows with CTR, fill and the change of each figure', () => {
    const rows = breakdownRows(
      [
        { id: 1, adRequests: 200, confirmedDeliveries: 100, clickedLinks: 3, unfilledAdRequests: 50 },
        { id: 2, adRequests: 10, confirmedDeliveries: 0, clickedLinks: 0 },
      ],
      [{ id: 1, adRequests: 100, confirmedDeliveries: 100, clickedLinks: 4 }],
      true,
    );
    expect(rows[0]).to.deep.equal({
      id: 1,
      figures: { adRequests: 200, confirmedDeliveries: 100, clickedLinks: 3 },
      ctr: '3.0%',
      fill: '80.0%',
      change: { adRequests: '+100.0%', confirmedDeliveries: '±0.0%', clickedLinks: '−25.0%' },
    });
    // Not among the previous rows, and they were all read: it had nothing then.
    expect(rows[1]!.change).to.deep.equal({ adRequests: 'new', confirmedDeliveries: '–', clickedLinks: '–' });
    expect(rows[1]!.ctr).to.equal(null);
    expect(rows[1]!.fill).to.equal(null);
  });

  it('does not claim a change it cannot know', () => {
    const current = [{ id: 9, adRequests: 5, confirmedDeliveries: 1, clickedLinks: 0 }];
    expect(breakdownRows(current, [], false)[0]!.change.adRequests).to.equal(null);
    expect(breakdownRows(current, null, true)[0]!.change.adRequests).to.equal(null);
  });
});

describe('the review queue\'s rules', () => {
  const press = (key: string, target: KeyPress['target'] = { tagName: 'BODY' }, modifiers: Partial<KeyPress> = {}): KeyPress => ({ key, altKey: false, ctrlKey: false, metaKey: false, target, ...modifiers });

  it('maps j, k, a, r and x to their moves outside text fields only', () => {
    expect(shortcutOf(press('j'))).to.equal('next');
    expect(shortcutOf(press('k'))).to.equal('previous');
    expect(shortcutOf(press('a', { tagName: 'BUTTON' }))).to.equal('approve');
    expect(shortcutOf(press('r'))).to.equal('reject');
    expect(shortcutOf(press('x', { tagName: 'INPUT', type: 'checkbox' }))).to.equal('select');
    expect(shortcutOf(press('a', { tagName: 'TEXTAREA' }))).to.equal(null);
    expect(shortcutOf(press('j', { tagName: 'INPUT', type: 'search' }))).to.equal(null);
    expect(shortcutOf(press('r', { tagName: 'DIV', isContentEditable: true }))).to.equal(null);
    expect(shortcutOf(press('r', { tagName: 'BODY' }, { ctrlKey: true }))).to.equal(null);
    expect(shortcutOf(press('q'))).to.equal(null);
  });

  it('moves within the list', () => {
    expect(moveIndex(-1, 1, 3)).to.equal(0);
    expect(moveIndex(-1, -1, 3)).to.equal(2);
    expect(moveIndex(2, 1, 3)).to.equal(2);
    expect(moveIndex(0, -1, 3)).to.equal(0);
    expect(moveIndex(1, 1, 3)).to.equal(2);
    expect(moveIndex(0, 1, 0)).to.equal(-1);
  });

  it('activates only after the approval is stored, and says which step failed', async () => {
    const steps: string[] = [];
    const both = await approveThenActivate(async (step) => {
      steps.push(step);
    });
    expect(both).to.deep.equal({ approved: true, activated: true, error: null });
    expect(steps).to.deep.equal(['approve', 'activate']);

    const refused = new Error('no');
    steps.length = 0;
    const first = await approveThenActivate(async (step) => {
      steps.push(step);
      throw refused;
    });
    expect(first).to.deep.equal({ approved: false, activated: false, error: refused });
    expect(steps).to.deep.equal(['approve']);

    const second = await approveThenActivate(async (step) => {
      if (step === 'activate') throw refused;
    });
    expect(second).to.deep.equal({ approved: true, activated: false, error: refused });
  });

  it('sums up an owner\'s records by how they ended', () => {
    const noun = { one: 'campaign', many: 'campaigns' };
    expect(historyWords(noun, [], false)).to.equal('no campaigns');
    expect(historyWords(noun, ['rejected'], false)).to.equal('1 campaign: Rejected 1');
    expect(historyWords(noun, ['active', 'rejected', 'rejected', 'submitted'], false)).to.equal('4 campaigns: Rejected 2 · Active 1 · In review 1');
    expect(historyWords(noun, ['active'], true)).to.equal('1+ campaigns: Active 1');
  });
});

describe('a day\'s hourly figures', () => {
  it('has every UTC hour of the day, quiet hours as zeros, hours not begun yet to come', () => {
    const now = new Date('2026-11-27T10:30:00.000Z');
    const hours = dayHours([{ hour: '2026-11-27T09:00:00.000Z', adRequests: 4, confirmedDeliveries: 3, clickedLinks: 1 }], '2026-11-27', now);
    expect(hours).to.have.length(24);
    expect(hours[0]).to.deep.equal({ hour: '2026-11-27T00:00:00.000Z', adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, toCome: false });
    expect(hours[9]).to.deep.equal({ hour: '2026-11-27T09:00:00.000Z', adRequests: 4, confirmedDeliveries: 3, clickedLinks: 1, toCome: false });
    expect(hours[10]?.toCome, 'the hour under way has begun').to.equal(false);
    expect(hours[11]?.toCome).to.equal(true);
    expect(dayHours([], '2026-11-26', now).every((hour) => !hour.toCome), 'a past day has every hour').to.equal(true);
    expect(dayHours([], 'today', now)).to.deep.equal([]);
  });

  it('writes the hours begun as CSV, none of those to come', () => {
    const csv = hoursCsv(dayHours([{ hour: '2026-11-27T01:00:00.000Z', adRequests: 2, confirmedDeliveries: 1, clickedLinks: 0 }], '2026-11-27', new Date('2026-11-27T01:59:00.000Z')));
    expect(csv).to.equal('hour,ad_requests,confirmed_deliveries,clicked_links\r\n2026-11-27T00:00:00.000Z,0,0,0\r\n2026-11-27T01:00:00.000Z,2,1,0\r\n');
  });
});

describe('the type-ahead picker\'s choices', () => {
  it('keeps the choices whose words all appear, those starting with the text first', () => {
    const choices = [
      { value: 'en', label: 'English (en)' },
      { value: 'tr', label: 'Turkish (tr)' },
      { value: 'tk', label: 'Turkmen (tk)' },
      { value: 'pt', label: 'Portuguese (pt)' },
    ];
    expect(matchingChoices(choices, '').map((choice) => choice.value)).to.deep.equal(['en', 'tr', 'tk', 'pt']);
    expect(matchingChoices(choices, 'turk').map((choice) => choice.value)).to.deep.equal(['tr', 'tk']);
    expect(matchingChoices(choices, 'TK').map((choice) => choice.value)).to.deep.equal(['tk']);
    expect(matchingChoices(choices, 'ugues').map((choice) => choice.value)).to.deep.equal(['pt']);
    expect(matchingChoices([{ value: 'x', label: 'Gaeilge' }, { value: 'y', label: 'Irish, Gaelic' }], 'gae').map((choice) => choice.value)).to.deep.equal(['x', 'y']);
    expect(matchingChoices(choices, 'zz')).to.deep.equal([]);
  });
});
