import { expect } from 'chai';
import type { Principal } from '@pilot/platform';
import {
  applyTransition,
  CAMPAIGN_STATUSES,
  campaignStateOf,
  canSee,
  decideTransition,
  newDraft,
  TRANSITION_NAMES,
  type CampaignStatus,
  type TransitionName,
} from '../src/domain/campaign';

type Caller = Pick<Principal, 'accountId' | 'admin'>;

const owner: Caller = { accountId: '100', admin: false };
const stranger: Caller = { accountId: '200', admin: false };
const admin: Caller = { accountId: '900', admin: true };
const adminOwner: Caller = { accountId: '100', admin: true };

const ALLOWED: Record<TransitionName, { from: CampaignStatus[]; to: CampaignStatus }> = {
  submit: { from: ['draft', 'rejected'], to: 'submitted' },
  approve: { from: ['submitted'], to: 'approved' },
  reject: { from: ['submitted'], to: 'rejected' },
  activate: { from: ['approved', 'paused'], to: 'active' },
  pause: { from: ['active'], to: 'paused' },
};
const PERMITTED_CALLER: Record<TransitionName, Caller> = { submit: owner, approve: admin, reject: admin, activate: admin, pause: owner };

const draft = newDraft(7, '100', {
  name: 'n',
  format: 'bot',
  title: 't',
  text: 'x',
  destinationUrl: 'https://example.com',
  buttonText: 'b',
  imageUrl: null,
  language: 'en',
  replaces: null,
});

describe('campaign state machine', () => {
  for (const name of TRANSITION_NAMES) {
    for (const status of CAMPAIGN_STATUSES) {
      const allowed = ALLOWED[name].from.includes(status);
      it(`${allowed ? 'allows' : 'refuses with invalid_transition'} ${name} from ${status}`, () => {
        const decision = decideTransition(name, { status, ownerAccountId: '100' }, PERMITTED_CALLER[name]);
        if (allowed) expect(decision).to.include({ ok: true, from: status, to: ALLOWED[name].to });
        else expect(decision).to.deep.equal({ ok: false, refusal: 'invalid_transition' });
      });
    }
  }

  it('lets only the owner submit, even against an administrator', () => {
    expect(decideTransition('submit', draft, stranger)).to.deep.equal({ ok: false, refusal: 'not_owner' });
    expect(decideTransition('submit', draft, admin)).to.deep.equal({ ok: false, refusal: 'not_owner' });
    expect(decideTransition('submit', draft, adminOwner)).to.include({ ok: true });
  });

  it('never lets an owner approve, reject or activate, an administrator who owns the campaign included', () => {
    for (const name of ['approve', 'reject', 'activate'] as const) {
      expect(decideTransition(name, { status: 'submitted', ownerAccountId: '100' }, owner)).to.deep.equal({ ok: false, refusal: 'admin_only' });
      expect(decideTransition(name, { status: 'submitted', ownerAccountId: '100' }, adminOwner)).to.deep.equal({ ok: false, refusal: 'own_campaign_review' });
    }
  });

  it('checks permission before the state, so a refused account learns 403 whatever the state', () => {
    expect(decideTransition('approve', { status: 'draft', ownerAccountId: '100' }, owner)).to.deep.equal({ ok: false, refusal: 'admin_only' });
  });

  it('lets the owner or an administrator pause, nobody else', () => {
    const active = { status: 'active' as const, ownerAccountId: '100' };
    expect(decideTransition('pause', active, owner)).to.include({ ok: true, to: 'paused' });
    expect(decideTransition('pause', active, admin)).to.include({ ok: true, to: 'paused' });
    expect(decideTransition('pause', active, stranger)).to.deep.equal({ ok: false, refusal: 'not_owner' });
  });

  it('never makes an approved campaign active without the separate activation', () => {
    const reachable = TRANSITION_NAMES.filter((name) => ALLOWED[name].from.includes('submitted')).map((name) => ALLOWED[name].to);
    expect(reachable).to.not.include('active');
  });

  it('keeps a rejection reason until the campaign is submitted again', () => {
    const rejected = applyTransition({ ...draft, status: 'submitted' }, 'rejected', 'blurry image');
    expect(rejected).to.include({ status: 'rejected', rejectionReason: 'blurry image' });
    expect(applyTransition(rejected, 'submitted', null)).to.include({ status: 'submitted', rejectionReason: null });
  });

  it('shows a campaign to its owner and administrators only', () => {
    expect(canSee(draft, owner)).to.equal(true);
    expect(canSee(draft, admin)).to.equal(true);
    expect(canSee(draft, stranger)).to.equal(false);
  });

  it('puts the full campaign state into events, without workspace-only fields', () => {
    expect(campaignStateOf(draft)).to.deep.equal({
      campaignId: 7,
      ownerAccountId: '100',
      status: 'draft',
      format: 'bot',
      language: 'en',
      title: 't',
      text: 'x',
      buttonText: 'b',
      imageUrl: null,
      destinationUrl: 'https://example.com',
    });
  });
});
