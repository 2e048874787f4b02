/**
 * What the placement service does, without HTTP: set a slot's placement (administrators), list the slots
 * with impression counts, answer the public read, count an impression, read the audit.
 */
import { randomUUID } from 'node:crypto';
import { addressLimitKey, problems, type Clock, type RedisLimiter } from '@pilot/platform';
import { createEnvelope, PLACEMENT_CHANGED, type PlacementChanged } from '@pilot/contracts';
import { auditItemOf, type InternalAuditItem } from '@pilot/contracts';
import type { HistoryPosition } from '@pilot/storage';
import { adminViewOf, isShowable, publicViewOf, sameContent, type AdminPlacementView, type Placement, type PublicPlacement } from '../domain/placement';
import { SLOTS, type Slot } from '../domain/slots';
import type { PlacementInput } from '../domain/validation';
import type { ImpressionRepository } from '../data/impression-repository';
import type { PlacementRepository } from '../data/placement-repository';

export interface SlotItem {
  slot: Slot;
  placement: AdminPlacementView | null;
  impressions: number;
}

export type PlacementAuditItem = InternalAuditItem & { placementId: string };

export interface Caller {
  accountId: string;
  admin: boolean;
}

export type ImpressionOutcome = 'counted' | 'not_showable';

/** The audit action of every PUT: the slot got a new current placement. */
export const SET_ACTION = 'set';

export class PlacementService {
  constructor(
    private readonly placements: PlacementRepository,
    private readonly impressions: ImpressionRepository,
    private readonly clock: Clock,
    /** Impression reports per client address (IMPRESSION_LIMIT_*), shared by every replica. */
    private readonly impressionLimit: RedisLimiter,
  ) {}

  async listSlots(): Promise<SlotItem[]> {
    return Promise.all(SLOTS.map(async (slot) => this.itemOf(slot, (await this.placements.currentOf(slot))?.placement ?? null)));
  }

  /**
   * A PUT of exactly what the slot already holds changes nothing: the same placement, its impressions kept,
   * no audit entry, no event. Anything else is a new placement whose count starts at 0.
   */
  async setPlacement(slot: Slot, input: PlacementInput, actor: Caller): Promise<SlotItem> {
    const current = (await this.placements.currentOf(slot))?.placement ?? null;
    if (current && sameContent(current, input)) return this.itemOf(slot, current);
    const now = this.clock.now();
    const placement: Placement = { placementId: randomUUID(), slot, ...input, createdAt: now, createdBy: actor.accountId };
    const eventsFor = (version: number): PlacementChanged[] => [
      createEnvelope(
        PLACEMENT_CHANGED,
        slot,
        version,
        {
          slot,
          placementId: placement.placementId,
          status: placement.status,
          startsAt: placement.startsAt?.toISOString() ?? null,
          endsAt: placement.endsAt?.toISOString() ?? null,
        },
        now,
      ),
    ];
    await this.placements.replace(slot, placement, { at: now, actorAccountId: actor.accountId, action: SET_ACTION }, eventsFor);
    return { slot, placement: adminViewOf(placement), impressions: 0 };
  }

  /** The slot's placement when it is showable now; null otherwise (answered 204). */
  async publicPlacement(slot: Slot): Promise<PublicPlacement | null> {
    const placement = (await this.placements.currentOf(slot))?.placement;
    return isShowable(placement, this.clock.now()) ? publicViewOf(placement) : null;
  }

  /** Counts an impression only for the slot's current placement while it is showable. */
  /** The abuse limit on impression reports from `clientIp` (an IPv6 address's /64): 429 over it. Asked before the report is read. */
  async admitImpressionReport(clientIp: string): Promise<void> {
    const decision = await this.impressionLimit.consume(addressLimitKey(clientIp));
    if (!decision.allowed) throw problems.tooManyRequests(decision.retryAfterSeconds, 'Too many impression reports from this client');
  }

  async recordImpression(slot: Slot, placementId: string): Promise<ImpressionOutcome> {
    const placement = (await this.placements.currentOf(slot))?.placement;
    const now = this.clock.now();
    if (!isShowable(placement, now) || placement.placementId !== placementId) return 'not_showable';
    await this.impressions.record(placementId, now);
    return 'counted';
  }

  /**
   * Up to `limit` entries in the audit's order after `after`. Placements are administrator-owned: an
   * administrator sees every entry, anyone else none.
   */
  async audit(caller: Caller, entity: string | undefined, entityId: string | undefined, after: HistoryPosition | null, limit: number): Promise<PlacementAuditItem[]> {
    if (!caller.admin) return [];
    if (entity !== undefined && entity !== 'placement') return [];
    const entries = await this.placements.history(entityId, after, limit);
    return entries.map((entry) => ({ ...auditItemOf(entry.entity, entry), placementId: entry.state.placement.placementId }));
  }

  private async itemOf(slot: Slot, placement: Placement | null): Promise<SlotItem> {
    return {
      slot,
      placement: placement ? adminViewOf(placement) : null,
      impressions: placement ? await this.impressions.countFor(placement.placementId, this.clock.now()) : 0,
    };
  }
}
