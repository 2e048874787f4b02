/**
 * What was sent to whom, under each event's id (docs/storage.md):
 * - `notification_deliveries`: one document per message settled, under `<event id>:<account>` (or
 *   `<event id>:queue:<account>` for a summary), written once by an exclusive insert and never changed:
 *   sent (with the platform's message id), blocked, refused. A redelivered event finds it and sends nothing.
 * - `notification_send_claims`: who is sending a message now, one document per message under its delivery
 *   id: the first sender inserts it as claim 1; its holder renews `leaseUntil` before each attempt (guarded
 *   by its claim number), and another replica takes the message over only by one update guarded by the
 *   claim and the lease it found run out, which makes it claim n+1.
 * Both are read by `_id` alone; the date fields are indexed for the retention sweep.
 */
import { claimOnce, createDeclaredIndexes, modelOf, retentionRule, storedSchema, type Connection, type Model, type RetentionRule } from '@pilot/storage';

export type DeliveryOutcome = 'sent' | 'blocked' | 'refused';

export interface DeliveryDocument {
  _id: string;
  eventId: string;
  accountId: string;
  kind: 'review' | 'queue';
  outcome: DeliveryOutcome;
  messageId: number | null;
  detail: string | null;
  claim: number;
  at: Date;
}

export interface SendClaimDocument {
  _id: string;
  deliveryId: string;
  claim: number;
  holder: string;
  claimedAt: Date;
  leaseUntil: Date;
}

const deliverySchema = storedSchema<DeliveryDocument>(
  {
    _id: { type: String, required: true },
    eventId: { type: String, required: true },
    accountId: { type: String, required: true },
    kind: { type: String, required: true },
    outcome: { type: String, required: true },
    messageId: { type: Number, default: null },
    detail: { type: String, default: null },
    claim: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  [[{ at: 1 }]],
);

const claimSchema = storedSchema<SendClaimDocument>(
  {
    _id: { type: String, required: true },
    deliveryId: { type: String, required: true },
    claim: { type: Number, required: true },
    holder: { type: String, required: true },
    claimedAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
  },
  [[{ claimedAt: 1 }]],
);

export class DeliveryRepository {
  private readonly deliveries: Model<DeliveryDocument>;
  private readonly claims: Model<SendClaimDocument>;

  constructor(connection: Connection) {
    this.deliveries = modelOf(connection, 'notification_deliveries', deliverySchema);
    this.claims = modelOf(connection, 'notification_send_claims', claimSchema);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.deliveries, this.claims);
  }

  retentionRules(keepMs: number): RetentionRule[] {
    return [retentionRule(this.deliveries, ['at'], keepMs), retentionRule(this.claims, ['claimedAt'], keepMs)];
  }

  async settled(deliveryId: string): Promise<DeliveryDocument | null> {
    return this.deliveries.findById(deliveryId).lean<DeliveryDocument>();
  }

  /** Records how a message ended; false when it was already recorded (by a replica that got there first). */
  async settle(document: DeliveryDocument): Promise<boolean> {
    const { _id, ...rest } = document;
    return claimOnce(this.deliveries, _id, rest);
  }

  /** Takes the first claim of a message; false when a replica claimed it already. */
  async claimFirst(deliveryId: string, holder: string, now: Date, leaseUntil: Date): Promise<boolean> {
    return claimOnce(this.claims, deliveryId, { deliveryId, claim: 1, holder, claimedAt: now, leaseUntil });
  }

  /**
   * Takes the message over from `held` (found with its lease run out): claim n+1, by one update guarded by
   * the claim and the lease as found; false when its holder renewed it or another replica took it first.
   */
  async takeOver(held: SendClaimDocument, holder: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const { matchedCount } = await this.claims.updateOne(
      { _id: held._id, claim: held.claim, leaseUntil: held.leaseUntil },
      { $set: { claim: held.claim + 1, holder, claimedAt: now, leaseUntil } },
    );
    return matchedCount === 1;
  }

  /** The claim on a message now (its number, holder and lease); null before any. */
  async currentClaim(deliveryId: string): Promise<SendClaimDocument | null> {
    return this.claims.findById(deliveryId).lean<SendClaimDocument>();
  }

  /** The holder of claim `claim` keeps it alive; nothing once another replica took the message over. */
  async renew(deliveryId: string, claim: number, leaseUntil: Date): Promise<void> {
    await this.claims.updateOne({ _id: deliveryId, claim }, { $set: { leaseUntil } });
  }
}
