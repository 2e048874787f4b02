import { expect } from 'chai';
import { ownerNoticeOf, queueSummaryText } from '../src/domain/notices';
import { chosenAfter, NOTHING_CHOSEN, settingsInForce } from '../src/domain/settings';
import { loadConfig } from '../src/config';
import { campaignEvent, publisherEvent } from './support';

describe('notification domain', () => {
  it('announces an event written before events named their actor, except a campaign pause (the owner may have paused it)', () => {
    const approved = campaignEvent('campaign.approved', { owner: '42' });
    delete approved.data.actorAccountId;
    delete approved.data.name;
    expect(ownerNoticeOf(approved, 'https://pilot.example')?.text).to.match(/^Your campaign "A title" was approved\./);
    const paused = campaignEvent('campaign.paused', { owner: '42' });
    delete paused.data.actorAccountId;
    expect(ownerNoticeOf(paused, 'https://pilot.example')).to.equal(null);
    const platformPaused = publisherEvent('publisher.paused', { owner: '42' });
    delete platformPaused.data.actorAccountId;
    expect(ownerNoticeOf(platformPaused, 'https://pilot.example')?.accountId).to.equal('42');
  });

  it('cuts a very long reason and keeps the message whole', () => {
    const notice = ownerNoticeOf(campaignEvent('campaign.rejected', { owner: '42', reason: 'x'.repeat(3000) }), 'https://pilot.example');
    expect(notice?.text.length).to.be.below(1200);
    expect(notice?.text).to.match(/x…\nOpen it: https:\/\/pilot\.example\/workspace\/campaigns\/\d+$/);
  });

  it('says nothing of a submission or a key rotation to the owner', () => {
    expect(ownerNoticeOf(campaignEvent('campaign.submitted', { owner: '42', actor: '42' }), 'https://pilot.example')).to.equal(null);
    expect(ownerNoticeOf(publisherEvent('publisher.submitted', { owner: '42', actor: '42' }), 'https://pilot.example')).to.equal(null);
  });

  it('counts the review queue in words', () => {
    expect(queueSummaryText(1, 'https://pilot.example')).to.equal('1 record waits in the review queue.\nOpen it: https://pilot.example/workspace/review');
    expect(queueSummaryText(0, 'https://pilot.example')).to.match(/^0 records wait/);
  });

  it('applies the defaults and keeps what a PUT left out', () => {
    expect(settingsInForce(NOTHING_CHOSEN, false)).to.deep.equal({ reviews: true, queue: false });
    expect(settingsInForce(NOTHING_CHOSEN, true)).to.deep.equal({ reviews: true, queue: true });
    const chosen = chosenAfter(chosenAfter(NOTHING_CHOSEN, { queue: false }), { reviews: false });
    expect(chosen).to.deep.equal({ reviews: false, queue: false });
    expect(settingsInForce(chosen, true)).to.deep.equal({ reviews: false, queue: false });
  });

  it('refuses a malformed bot token and a lease no longer than the send timeout, naming the setting', () => {
    const base = { NODE_ENV: 'test', PORT: '0', MONGO_DB: 'x' };
    expect(() => loadConfig({ ...base, TELEGRAM_BOT_TOKEN: 'not a token' })).to.throw(/TELEGRAM_BOT_TOKEN/);
    expect(() => loadConfig({ ...base, BOT_API_TIMEOUT_MS: '5000', NOTIFICATION_LEASE_MS: '5000' })).to.throw(/NOTIFICATION_LEASE_MS/);
    expect(loadConfig(base).TELEGRAM_BOT_TOKEN).to.equal('');
  });
});
