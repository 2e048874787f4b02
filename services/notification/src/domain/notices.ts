/**
 * What the sign-in bot says about a change, decided from the event alone (pure). API.md "Notifications
 * through the bot": an owner hears of their own campaign approved, rejected, activated, or paused by
 * someone else, and of their own platform approved, rejected or paused; never of what they did themselves.
 * Messages are plain text (no parse mode), so nothing a person typed can become markup or a link.
 */
import type { KnownEvent } from '@pilot/contracts';

export interface OwnerNotice {
  accountId: string;
  text: string;
}

/** A reason longer than this is cut (a message may hold 4096 characters; reasons are at most 500 today). */
const REASON_SHOWN = 1000;

const CAMPAIGN_WORDS = {
  'campaign.approved': 'was approved. An administrator puts it on air next.',
  'campaign.rejected': 'was rejected.',
  'campaign.activated': 'is active: it can be shown to readers now.',
  'campaign.paused': 'was paused.',
} as const;

const PLATFORM_WORDS = {
  'publisher.approved': 'was approved. You can generate its API key now.',
  'publisher.rejected': 'was rejected. Its key no longer works.',
  'publisher.paused': 'was paused. Ad requests with its key are refused until it is approved again.',
} as const;

function reasonLine(reason: string | null | undefined): string[] {
  if (!reason) return [];
  const shown = [...reason];
  return [`Reason: ${shown.length > REASON_SHOWN ? `${shown.slice(0, REASON_SHOWN).join('')}…` : reason}`];
}

/**
 * Whether the owner did this themselves. An event without its actor (written before events carried one)
 * counts as someone else's only where the owner could not have done it: every change but a campaign pause.
 */
function byOwner(event: { type: string; data: { ownerAccountId: string; actorAccountId?: string } }): boolean {
  const actor = event.data.actorAccountId;
  if (actor === undefined) return event.type === 'campaign.paused';
  return actor === event.data.ownerAccountId;
}

/** The message for the owner of the changed record, or null when the change is not announced. */
export function ownerNoticeOf(event: KnownEvent, publicBaseUrl: string): OwnerNotice | null {
  if (event.type in CAMPAIGN_WORDS && event.type.startsWith('campaign.')) {
    const campaign = event as Extract<KnownEvent, { type: keyof typeof CAMPAIGN_WORDS }>;
    if (byOwner(campaign)) return null;
    const { data } = campaign;
    const name = data.name ?? data.title;
    const page = new URL(`/workspace/campaigns/${data.campaignId}`, publicBaseUrl).toString();
    return {
      accountId: data.ownerAccountId,
      text: [`Your campaign "${name}" ${CAMPAIGN_WORDS[campaign.type]}`, ...reasonLine(data.reason), `Open it: ${page}`].join('\n'),
    };
  }
  if (event.type in PLATFORM_WORDS) {
    const platform = event as Extract<KnownEvent, { type: keyof typeof PLATFORM_WORDS }>;
    if (byOwner(platform)) return null;
    const { data } = platform;
    const page = new URL(`/workspace/publishers/${data.publisherId}`, publicBaseUrl).toString();
    return {
      accountId: data.ownerAccountId,
      text: [`Your platform ${data.link} ${PLATFORM_WORDS[platform.type]}`, ...reasonLine(data.reason), `Open it: ${page}`].join('\n'),
    };
  }
  return null;
}

/** A record entered the review queue (the trigger of the administrators' summary). */
export function entersReviewQueue(event: KnownEvent): boolean {
  return event.type === 'campaign.submitted' || event.type === 'publisher.submitted';
}

/** The review-queue record an event is about, and whether it waits for review after it. */
export function reviewQueueStateOf(event: KnownEvent): { recordKey: string; waiting: boolean } | null {
  if (event.type.startsWith('campaign.')) {
    const { data } = event as Extract<KnownEvent, { type: `campaign.${string}` }>;
    return { recordKey: `campaign:${data.campaignId}`, waiting: data.status === 'submitted' };
  }
  if (event.type.startsWith('publisher.')) {
    const { data } = event as Extract<KnownEvent, { type: `publisher.${string}` }>;
    return { recordKey: `publisher:${data.publisherId}`, waiting: data.status === 'submitted' };
  }
  return null;
}

/** The administrators' summary. */
export function queueSummaryText(waiting: number, publicBaseUrl: string): string {
  const page = new URL('/workspace/review', publicBaseUrl).toString();
  const count = waiting === 1 ? '1 record waits' : `${waiting} records wait`;
  return `${count} in the review queue.\nOpen it: ${page}`;
}
