/**
 * Publisher platforms: input validation and link normalization, the state machine of API.md, and the
 * public view of a record. Pure; the use cases apply it.
 */
import type { FieldError } from '@pilot/problems';

export const PUBLISHER_STATUSES = ['draft', 'submitted', 'approved', 'paused', 'rejected'] as const;
export type PublisherStatus = (typeof PUBLISHER_STATUSES)[number];
export type PlatformType = 'bot' | 'channel';

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
  /** SHA-256 (hex) of the sandbox test key (decision 0021); absent in records written before it: none. */
  testKeyHash?: string | null;
  testKeyCreatedAt?: Date | null;
}

// ---- input ----

export interface NewPublisherInput {
  type: PlatformType;
  link: string;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const USERNAME = /^[A-Za-z0-9_]{5,32}$/;
const BOT_TOKEN = /\d{5,}:[A-Za-z0-9_-]{30,}/;

/** `@name`, `t.me/name`, `https://t.me/name` (and telegram.me) -> the username, else null. */
export function usernameOf(link: string): string | null {
  const trimmed = link.trim();
  if (trimmed.startsWith('@')) return trimmed.slice(1);
  const match = /^(?:https?:\/\/)?(?:www\.)?(?:t\.me|telegram\.me)\/([^/?#\s]+)\/?$/i.exec(trimmed);
  return match?.[1] ?? null;
}

export function validateNewPublisher(body: unknown): Validated<NewPublisherInput> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, errors: [{ field: '(body)', code: 'invalid_type', message: 'must be a JSON object' }] };
  }
  const input = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const field of Object.keys(input)) {
    if (field !== 'type' && field !== 'link') {
      const isToken = /token/i.test(field);
      errors.push({
        field,
        code: isToken ? 'bot_token_refused' : 'unknown_field',
        message: isToken ? 'a bot token is never requested or accepted' : 'is not a field of a publisher platform',
      });
    }
  }
  let type: PlatformType | null = null;
  if (input.type === undefined) errors.push({ field: 'type', code: 'required', message: 'is required' });
  else if (input.type !== 'bot' && input.type !== 'channel') errors.push({ field: 'type', code: 'not_allowed', message: 'must be bot or channel' });
  else type = input.type;

  let link: string | null = null;
  if (input.link === undefined) errors.push({ field: 'link', code: 'required', message: 'is required' });
  else if (typeof input.link !== 'string') errors.push({ field: 'link', code: 'invalid_type', message: 'must be a string' });
  else if (input.link.length > 200) errors.push({ field: 'link', code: 'too_long', message: 'must be at most 200 characters' });
  else if (BOT_TOKEN.test(input.link)) errors.push({ field: 'link', code: 'bot_token_refused', message: 'a bot token is never requested or accepted' });
  else {
    const username = usernameOf(input.link);
    if (username === null) {
      errors.push({ field: 'link', code: 'invalid_link', message: 'must be https://t.me/<username> or @username' });
    } else if (!USERNAME.test(username)) {
      errors.push({ field: 'link', code: 'invalid_username', message: 'the username must be 5 to 32 letters, digits or underscores' });
    } else if (type === 'bot' && !/bot$/i.test(username)) {
      errors.push({ field: 'link', code: 'bot_username_required', message: "a bot's username ends in bot" });
    } else {
      link = `https://t.me/${username}`;
    }
  }
  if (errors.length > 0 || type === null || link === null) return { ok: false, errors };
  return { ok: true, value: { type, link } };
}

export function validateReason(body: unknown): Validated<string> {
  const reason = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).reason : undefined;
  if (reason === undefined) return { ok: false, errors: [{ field: 'reason', code: 'required', message: 'is required' }] };
  if (typeof reason !== 'string') return { ok: false, errors: [{ field: 'reason', code: 'invalid_type', message: 'must be a string' }] };
  const trimmed = reason.trim();
  if (trimmed.length < 1) return { ok: false, errors: [{ field: 'reason', code: 'too_short', message: 'must be 1 to 500 characters' }] };
  if (trimmed.length > 500) return { ok: false, errors: [{ field: 'reason', code: 'too_long', message: 'must be 1 to 500 characters' }] };
  return { ok: true, value: trimmed };
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

export interface PublisherView {
  id: number;
  type: PlatformType;
  link: string;
  status: PublisherStatus;
  ownerAccountId: string;
  keyCreatedAt: string | null;
  /** When the sandbox test key was made, null when the platform has none. */
  testKeyCreatedAt: string | null;
  /** The administrator's reason of the last rejection while it stands (a later transition clears it), else null. */
  rejectionReason: string | null;
  /** Where the platform's server sends its network calls: PUBLIC_BASE_URL, without a trailing slash. */
  apiBaseUrl: string;
  /**
   * When the current live / test key was last used for an ad request, to the minute (decision 0027); null
   * when not since it was made, undefined when unknown (lists, or Redis not answering).
   */
  keyLastUsedAt?: string | null;
  testKeyLastUsedAt?: string | null;
  createdAt: string;
  updatedAt: string;
}

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

export function viewOf(record: PublisherState & { _id: number | string; createdAt: Date; updatedAt: Date }, apiBaseUrl: string): PublisherView {
  return {
    id: Number(record._id),
    type: record.type,
    link: record.link,
    status: record.status,
    ownerAccountId: record.ownerAccountId,
    keyCreatedAt: isoOrNull(record.keyCreatedAt),
    testKeyCreatedAt: isoOrNull(record.testKeyCreatedAt),
    rejectionReason: record.rejectionReason ?? null,
    apiBaseUrl: apiBaseUrl.replace(/\/+$/, ''),
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
}
