/**
 * How long publisher-identity keeps its per-event documents (docs/operations.md). None of them is the
 * audit record (that is `publisher_history` and `account_history`, kept forever); each is kept for as long
 * as the rule it enforces needs it, plus a margin.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

export const RETENTION = {
  /**
   * Login requests, counted from `expiresAt` (5 minutes after creation). Until then the request answers
   * `pending`/`confirmed`; for a day after it still answers `expired` to a returning browser and `expired`
   * to the bot; after that the code is unknown.
   */
  loginRequestsMs: DAY,
  /**
   * Code uses, counted from the use. A use only matters while its request could still be confirmed
   * (5 minutes); it goes at the earliest a day after its request expired, when the request answers
   * `expired` before the use is even looked at, and minutes before the request itself is gone, after which
   * the code is unknown: a code can never be used twice.
   */
  loginCodeUsesMs: DAY,
  /** Answers (confirm or cancel), counted from the answer; they matter as long as the code use does. */
  loginAnswersMs: DAY,
  /**
   * Session issues, counted from the issue. One only matters while its request answers `confirmed`
   * (before `expiresAt`), so it is kept as long as the request is.
   */
  sessionIssuesMs: DAY,
  /** Webhook update ids, counted from receipt. The platform retries an update for about 24 hours. */
  webhookUpdatesMs: 3 * DAY,
  /**
   * Sessions, counted from `expiresAt` or `endedAt`, whichever comes first. Past either, the session
   * resolves to nobody, present or not; the day of margin keeps it for questions about recent sign-ins.
   */
  sessionsMs: DAY,
} as const;

