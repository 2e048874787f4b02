/** The sign-in, totals and audit contracts of the workspace API (API.md). */
import { Type, type Static } from '@sinclair/typebox';
import { AccountId, NextCursor, Timestamp } from './fields';

/** GET /api/auth/session. */
export const Session = Type.Object({ accountId: AccountId, displayName: Type.String(), admin: Type.Boolean() }, { additionalProperties: false });
export type Session = Static<typeof Session>;

/** 201 of POST /api/auth/login. */
export const LoginStarted = Type.Object(
  { requestId: Type.String(), code: Type.String(), botUrl: Type.String({ format: 'uri' }), expiresAt: Timestamp },
  { additionalProperties: false },
);
export type LoginStarted = Static<typeof LoginStarted>;

/** GET /api/auth/login/{requestId}. */
export const LoginStatus = Type.Object(
  { status: Type.Union([Type.Literal('pending'), Type.Literal('confirmed'), Type.Literal('cancelled'), Type.Literal('expired')]), account: Type.Optional(Session) },
  { additionalProperties: false },
);
export type LoginStatus = Static<typeof LoginStatus>;

const counts = {
  adRequests: Type.Integer({ minimum: 0 }),
  confirmedDeliveries: Type.Integer({ minimum: 0 }),
  clickedLinks: Type.Integer({ minimum: 0 }),
};

export const Totals = Type.Object({
  ...counts,
  unfilledAdRequests: Type.Optional(Type.Integer({ minimum: 0, description: 'ad requests of the visible publishers answered 204 (no creative)' })),
});
export type Totals = Static<typeof Totals>;

/** GET /api/workspace/stats. */
export const Stats = Type.Composite([Totals, Type.Object({ days: Type.Array(Type.Composite([Totals, Type.Object({ date: Type.String({ format: 'date' }) })])) })]);
export type Stats = Static<typeof Stats>;

/** GET /api/workspace/stats with `granularity=hour`: every hour of the range, zeros included, instead of `days`. */
export const HourlyStats = Type.Composite([
  Totals,
  Type.Object({ hours: Type.Array(Type.Composite([Totals, Type.Object({ hour: Type.String({ format: 'date-time', description: 'ISO 8601, UTC, on the hour' }) })])) }),
]);
export type HourlyStats = Static<typeof HourlyStats>;

/** What `stats` answers: days, or hours. */
export const StatsAnswer = Type.Union([Stats, HourlyStats]);

/** GET /api/workspace/stats/breakdown: one item per campaign or platform (`id`), sorted and paged. */
export const Breakdown = Type.Object(
  {
    items: Type.Array(Type.Composite([Totals, Type.Object({ id: Type.Integer({ minimum: 1, description: 'the campaign or platform' }) })])),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `cursor` for the next page; null on the last' }),
  },
  { additionalProperties: false },
);
export type Breakdown = Static<typeof Breakdown>;

/** GET /api/workspace/stats/report: the figures of `stats` grouped by one to three dimensions; a row carries those of `by`. */
export const Report = Type.Object(
  {
    rows: Type.Array(
      Type.Object({
        day: Type.Optional(Type.String({ format: 'date' })),
        hour: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601, UTC, on the hour' })),
        campaignId: Type.Optional(Type.Integer({ minimum: 1 })),
        publisherId: Type.Optional(Type.Integer({ minimum: 1 })),
        language: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "the campaign's; null when tracking does not know it" })),
        format: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "the campaign's; null when tracking does not know it" })),
        ...counts,
      }),
    ),
    totals: Type.Object(counts, { description: 'every row, not only the page' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `cursor` for the next page; null on the last' }),
  },
  { additionalProperties: false },
);
export type Report = Static<typeof Report>;

export const AuditEntry = Type.Object({
  at: Timestamp,
  actorAccountId: Type.Union([AccountId, Type.Null()]),
  entity: Type.String(),
  entityId: Type.Union([Type.String(), Type.Integer()]),
  action: Type.String(),
  from: Type.Union([Type.String(), Type.Null()]),
  to: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  actorName: Type.Optional(Type.String({ description: 'the acting account\'s display name, where it has one' })),
});
export type AuditEntry = Static<typeof AuditEntry>;

/** GET /api/workspace/audit. */
export const AuditList = Type.Object({ items: Type.Array(AuditEntry), nextCursor: NextCursor });
export type AuditList = Static<typeof AuditList>;

/** GET and PUT /api/workspace/notifications: what the sign-in bot tells this account. */
export const NotificationSettings = Type.Object(
  {
    reviews: Type.Boolean({ description: 'messages about own campaigns and platforms: approved, rejected, activated, paused by someone else' }),
    queue: Type.Boolean({ description: 'administrators: at most one message per 10 minutes about the records waiting for review' }),
  },
  { additionalProperties: false },
);
export type NotificationSettings = Static<typeof NotificationSettings>;

/** Body of PUT /api/workspace/notifications: either field may be left out. */
export const NotificationSettingsBody = Type.Object(
  { reviews: Type.Optional(Type.Boolean()), queue: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type NotificationSettingsBody = Static<typeof NotificationSettingsBody>;
