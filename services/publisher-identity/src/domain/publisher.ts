/**
 * Publisher platforms: input validation and link normalization, the state machine of API.md, and the
 * public view of a record. Pure; the use cases apply it.
 */
import {
  NewPublisherBody,
  PUBLISHER_STATUSES,
  ReasonBody,
  usernameOf,
  validatorOf,
  type FieldProblem,
  type PlatformType,
  type Publisher,
  type PublisherStatus,
  type Validated,
} from '@pilot/contracts';

export { PUBLISHER_STATUSES, type PlatformType, type PublisherStatus };

export function isPublisherStatus(value: unknown): value is PublisherStatus {
  return typeof value === 'string' && (PUBLISHER_STATUSES as readonly string[]).includes(value);
}

/** The stored state of a platform (what every history entry holds). */
export interface PublisherState {
  ownerAccountId: string;
  type: PlatformType;
  link: string;
  status: PublisherStatus;
  /** SHA-256 (hex) of the current key; the key itself is never stored. */
  keyHash: string | null;
  keyCreatedAt: Date | null;
  /** Hashes of every earlier key (live or test), so any write of the read model revokes all of them again. */
  revokedKeyHashes: string[];
  rejectionReason: string | null;
  /** The reason given with the pause that left it paused (absent in records stored before it was kept). */
  pauseReason?: string | null;
  /** SHA-256 (hex) of the sandbox test key; absent or null: none. */
  testKeyHash?: string | null;
  testKeyCreatedAt?: Date | null;
  /**
   * SHA-256 (hex) of the live key the last generation replaced with a grace period, and when it stops
   * working (a rolling deploy); absent or null: none. At most one: generating again ends it at once.
   */
  previousKeyHash?: string | null;
  previousKeyExpiresAt?: Date | null;
  /** When it entered its current status (a key made later changes `updatedAt`, not this); absent in records stored before it was kept. */
  statusChangedAt?: Date | null;
}

/** The longest a replaced live key may keep working (API.md: previousKeyGraceSeconds 0 to 86400). */
export const MAX_PREVIOUS_KEY_GRACE_SECONDS = 86_400;

/**
 * The optional body of a live key generation, `{previousKeyGraceSeconds}`: an integer from 0 to 86400,
 * default 0 (the previous key stops at once). Anything else in the field: 422.
 */
export function validateKeyGeneration(body: unknown): Validated<{ previousKeyGraceSeconds: number }> {
  const input = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const grace = input.previousKeyGraceSeconds;
  if (grace === undefined || grace === null) return { ok: true, value: { previousKeyGraceSeconds: 0 } };
  if (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0 || grace > MAX_PREVIOUS_KEY_GRACE_SECONDS) {
    return {
      ok: false,
      errors: [{ field: 'previousKeyGraceSeconds', code: 'out_of_range', message: `a whole number of seconds from 0 to ${MAX_PREVIOUS_KEY_GRACE_SECONDS}` }],
    };
  }
  return { ok: true, value: { previousKeyGraceSeconds: grace } };
}

/** When the previous live key stops working, if it still works at `now`; else null. */
export function previousKeyExpiry(state: Pick<PublisherState, 'previousKeyHash' | 'previousKeyExpiresAt'>, now: Date): Date | null {
  if (!state.previousKeyHash || !state.previousKeyExpiresAt) return null;
  const expiresAt = new Date(state.previousKeyExpiresAt);
  return expiresAt.getTime() > now.getTime() ? expiresAt : null;
}

// ---- input ----

export interface NewPublisherInput {
  type: PlatformType;
  link: string;
}

export { usernameOf, type Validated };

const checkNewPublisher = validatorOf(NewPublisherBody);
const checkReason = validatorOf(ReasonBody);

/**
 * Body of a new platform (rules and codes in the contract NewPublisherBody), the link normalized to
 * https://t.me/<username>; the one rule across fields, a bot's username ending in bot, is checked here.
 */
export function validateNewPublisher(body: unknown): Validated<NewPublisherInput> {
  const checked = checkNewPublisher(body);
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const username = typeof input.link === 'string' ? usernameOf(input.link) : null;
  const linkFailed = !checked.ok && checked.errors.some((error) => error.field === 'link');
  const botLinkProblem = input.type === 'bot' && username !== null && !linkFailed && !/bot$/i.test(username);
  const errors: FieldProblem[] = checked.ok ? [] : [...checked.errors];
  if (botLinkProblem) errors.push({ field: 'link', code: 'bot_username_required', message: "a bot's username ends in bot" });
  if (!checked.ok || errors.length > 0 || username === null) return { ok: false, errors };
  return { ok: true, value: { type: checked.value.type, link: `https://t.me/${username}` } };
}

/** Body of a rejection, `{reason}` (contract ReasonBody); the reason is kept without surrounding spaces. */
export function validateReason(body: unknown): Validated<string> {
  const checked = checkReason(body ?? {});
  return checked.ok ? { ok: true, value: checked.value.reason.trim() } : checked;
}

// ---- state machine ----

export type PublisherAction = 'submit' | 'approve' | 'reject' | 'pause';
export type Role = 'owner' | 'admin';

export const TRANSITIONS: Record<PublisherAction, { who: Role; from: readonly PublisherStatus[]; to: PublisherStatus }> = {
  submit: { who: 'owner', from: ['draft', 'rejected'], to: 'submitted' },
  approve: { who: 'admin', from: ['submitted', 'paused'], to: 'approved' },
  reject: { who: 'admin', from: ['submitted', 'approved', 'paused'], to: 'rejected' },
  pause: { who: 'admin', from: ['approved'], to: 'paused' },
};

/** The next status, or null when the action is not allowed from `status`. */
export function nextStatus(status: PublisherStatus, action: PublisherAction): PublisherStatus | null {
  const rule = TRANSITIONS[action];
  return rule.from.includes(status) ? rule.to : null;
}

/** Past-tense audit action and event suffix of each action. */
export const ACTION_NAMES: Record<PublisherAction, 'submitted' | 'approved' | 'rejected' | 'paused'> = {
  submit: 'submitted',
  approve: 'approved',
  reject: 'rejected',
  pause: 'paused',
};

// ---- view ----

/** The platform object of every answer (the contract Publisher). */
export type PublisherView = Publisher;

/**
 * The view with its keys' last uses. A use older than the key's creation belonged to the key it replaced,
 * so it is not this key's use.
 */
export function withKeyUses(view: PublisherView, uses: { live: Date | null; test: Date | null }): PublisherView {
  const since = (use: Date | null, createdAt: string | null): string | null =>
    use && createdAt && use.getTime() >= Date.parse(createdAt) ? use.toISOString() : null;
  return { ...view, keyLastUsedAt: since(uses.live, view.keyCreatedAt), testKeyLastUsedAt: since(uses.test, view.testKeyCreatedAt) };
}

const isoOrNull = (at: Date | null | undefined): string | null => (at ? new Date(at).toISOString() : null);

export function viewOf(record: PublisherState & { _id: number | string; createdAt: Date; updatedAt: Date }, apiBaseUrl: string, now: Date): PublisherView {
  return {
    id: Number(record._id),
    type: record.type,
    link: record.link,
    status: record.status,
    ownerAccountId: record.ownerAccountId,
    keyCreatedAt: isoOrNull(record.keyCreatedAt),
    testKeyCreatedAt: isoOrNull(record.testKeyCreatedAt),
    previousKeyExpiresAt: isoOrNull(previousKeyExpiry(record, now)),
    rejectionReason: record.rejectionReason ?? null,
    pauseReason: record.status === 'paused' ? (record.pauseReason ?? null) : null,
    apiBaseUrl: apiBaseUrl.replace(/\/+$/, ''),
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
    ...(record.statusChangedAt ? { statusChangedAt: new Date(record.statusChangedAt).toISOString() } : {}),
  };
}
