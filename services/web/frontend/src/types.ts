export interface Session {
  accountId: string;
  displayName: string;
  admin: boolean;
}

export type CampaignStatus = 'draft' | 'submitted' | 'approved' | 'active' | 'paused' | 'rejected';
export type Format = 'bot' | 'channel';

export interface Campaign {
  id: number;
  name: string;
  format: Format;
  title: string;
  text: string;
  destinationUrl: string;
  buttonText: string;
  imageUrl: string | null;
  language: string;
  status: CampaignStatus;
  replaces: number | null;
  rejectionReason: string | null;
  ownerAccountId: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * A transition's answer: the campaign, and whether ad serving has the change yet (`pending`: stored, in
 * effect once the service's message broker is reachable again; answered with 202).
 */
export type CampaignTransitionAnswer = Campaign & { propagation: 'done' | 'pending' };

export type PublisherStatus = 'draft' | 'submitted' | 'approved' | 'paused' | 'rejected';

export interface Publisher {
  id: number;
  type: Format;
  link: string;
  status: PublisherStatus;
  ownerAccountId: string;
  keyCreatedAt: string | null;
  /** When the sandbox test key was made; null without one (absent from services of an earlier version). */
  testKeyCreatedAt?: string | null;
  rejectionReason?: string | null;
  /** PUBLIC_BASE_URL: where the platform's server sends its network calls. */
  apiBaseUrl?: string;
  /** When the current live / test key was last used for an ad request (to the minute); null: not since made; absent: unknown. */
  keyLastUsedAt?: string | null;
  testKeyLastUsedAt?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  /** Ad requests of the visible publishers answered 204 (no creative): beside the totals, for the fill rate. */
  unfilledAdRequests?: number;
}

export interface Stats extends Totals {
  days: Array<Totals & { date: string }>;
}

export interface AuditEntry {
  at: string;
  actorAccountId: string | null;
  entity: string;
  entityId: string | number;
  action: string;
  from: string | null;
  to: string | null;
  reason?: string | null;
}

export const SLOTS = ['home-feature', 'workspace-top', 'tr-footer'] as const;
export type Slot = (typeof SLOTS)[number];

export interface SitePlacement {
  slot: Slot;
  placementId: string | number;
  title: string;
  buttonText: string;
  destinationUrl: string;
  imageUrl: string | null;
}

export interface Placement {
  id?: string | number;
  placementId?: string | number;
  title: string;
  buttonText: string;
  destinationUrl: string;
  imageUrl?: string | null;
  status: 'draft' | 'active' | 'paused';
  startsAt?: string | null;
  endsAt?: string | null;
}

export interface SlotState {
  slot: Slot;
  placement: Placement | null;
  impressions: number;
}
