/**
 * The workspace API's answers, as the services declare them (@pilot/contracts: the schemas they validate
 * and document with). Type-only imports, so the browser bundle takes no code of the contracts package.
 */
import type {
  AdminPlacement,
  AuditEntry as AuditEntryContract,
  Campaign as CampaignContract,
  NotificationSettings as NotificationSettingsContract,
  CampaignFormat,
  CampaignTransitionAnswer as CampaignTransitionAnswerContract,
  Publisher as PublisherContract,
  Session as SessionContract,
  SitePlacement as SitePlacementContract,
  Slot as SlotContract,
  SlotState as SlotStateContract,
  Stats as StatsContract,
  Totals as TotalsContract,
} from '@pilot/contracts';

export type Session = SessionContract;
/** What the sign-in bot tells this account (GET and PUT /api/workspace/notifications). */
export type NotificationSettings = NotificationSettingsContract;
export type Format = CampaignFormat;
export type Campaign = CampaignContract;
export type CampaignStatus = Campaign['status'];

/**
 * A transition's answer: the campaign, and whether ad serving has the change yet (`pending`: stored, in
 * effect once the service's message broker is reachable again; answered with 202).
 */
export type CampaignTransitionAnswer = CampaignTransitionAnswerContract;

export type Publisher = PublisherContract;
export type PublisherStatus = Publisher['status'];
export type Totals = TotalsContract;
export type Stats = StatsContract;
export type AuditEntry = AuditEntryContract;

/** The site's placement slots; a value (the contracts' SLOTS is code, which the browser bundle does not take). */
export const SLOTS = ['home-feature', 'workspace-top', 'tr-footer'] as const satisfies readonly SlotContract[];
export type Slot = SlotContract;
export type SitePlacement = SitePlacementContract;
export type Placement = AdminPlacement;
export type SlotState = SlotStateContract;
