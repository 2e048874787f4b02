/**
 * What was sent to whom, under each event's id (docs/storage.md):
 * - `notification_deliveries`: one document per message settled, under `<event id>:<account>` (or
 *   `<event id>:queue:<account>` for a summary), written once by an exclusive insert and never changed:
 *   sent (with the platform's message id), blocked, refused. A redelivered event finds it and sends nothing.
 * - `notification_send_claims`: who is sending a message now. Claim n of a message is the document
 *   `<delivery id>#<n>`, taken by an exclusive insert; its holder renews `leaseUntil` before each attempt,
 *   and another replica takes the message over only by inserting claim n+1 after the lease ran out.
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

  /** Takes claim `claim` of a message; false when it exists already. */
  async claim(deliveryId: string, claim: number, holder: string, now: Date, leaseUntil: Date): Promise<boolean> {
    return claimOnce(this.claims, claimIdOf(deliveryId, claim), { deliveryId, claim, holder, claimedAt: now, leaseUntil });
  }

  async claimOf(deliveryId: string, claim: number): Promise<SendClaimDocument | null> {
    return this.claims.findById(claimIdOf(deliveryId, claim)).lean<SendClaimDocument>();
  }

  /** The holder keeps its claim alive (only the holder writes it, so a plain update by `_id` is enough). */
  async renew(deliveryId: string, claim: number, leaseUntil: Date): Promise<void> {
    await this.claims.updateOne({ _id: claimIdOf(deliveryId, claim) }, { $set: { leaseUntil } });
  }
}

function claimIdOf(deliveryId: string, claim: number): string {
  return `${deliveryId}#${claim}`;
}
