import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, createEnvelope, type CampaignEvent, type CampaignState } from '@pilot/contracts';
import type { ChangeFacts } from '../src';

export type Campaign = CampaignState;

export function campaign(campaignId: number, status: CampaignState['status'] = 'submitted'): Campaign {
  return {
    campaignId,
    ownerAccountId: '501',
    status,
    format: 'bot',
    language: 'en',
    title: 'Title',
    text: 'Text',
    buttonText: 'Open',
    imageUrl: null,
    destinationUrl: 'https://example.org',
  };
}

export function campaignEvent(state: Campaign, version: number): CampaignEvent {
  const type = state.status === 'active' ? CAMPAIGN_ACTIVATED : CAMPAIGN_SUBMITTED;
  return createEnvelope(type, String(state.campaignId), version, state) as CampaignEvent;
}

export function facts(action: string, from: string | null, to: string | null, at = new Date('2026-02-01T10:00:00.000Z')): ChangeFacts {
  return { at, actorAccountId: '501', action, from, to };
}
