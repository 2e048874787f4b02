/** The publisher platform contracts of the workspace API (API.md "Workspace: publisher platforms"). */
import { Type, type Static } from '@sinclair/typebox';
import { AccountId, Id, literals, ListCountFields, NextCursor, StringEnum, Timestamp } from './fields';

export const PLATFORM_TYPES = ['bot', 'channel'] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];
export const PUBLISHER_STATUSES = ['draft', 'submitted', 'approved', 'paused', 'rejected'] as const;
export type PublisherStatus = (typeof PUBLISHER_STATUSES)[number];

const BOT_TOKEN_REFUSED = 'a bot token is never requested or accepted';

/** Body of POST /api/workspace/publishers. A field named like a token is refused as one (never asked for). */
export const NewPublisherBody = Type.Object(
  {
    type: StringEnum(PLATFORM_TYPES, 'not_allowed', 'bot or channel'),
    link: Type.String({
      'x-telegram-link': true,
      description: "https://t.me/<username> or @username (normalized to the former); a bot's username ends in bot",
      examples: ['https://t.me/weather_bot'],
    }),
  },
  {
    additionalProperties: false,
    patternProperties: { '[Tt][Oo][Kk][Ee][Nn]': { not: {}, 'x-error-code': 'bot_token_refused', description: BOT_TOKEN_REFUSED } },
  },
);
export type NewPublisherBody = Static<typeof NewPublisherBody>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});

/** The publisher object of every answer. */
export const Publisher = Type.Object(
  {
    id: Id,
    type: literals(PLATFORM_TYPES),
    link: Type.String(),
    status: literals(PUBLISHER_STATUSES),
    ownerAccountId: AccountId,
    keyCreatedAt: Nullable(Timestamp),
    testKeyCreatedAt: Nullable(Timestamp, 'when the sandbox test key was made, null when the platform has none'),
    previousKeyExpiresAt: Nullable(Timestamp, 'when the live key the last generation replaced stops working (a rolling deploy), null when none works'),
    rejectionReason: Nullable(Type.String(), "the administrator's reason of the last rejection while it stands (a later transition clears it)"),
    pauseReason: Nullable(Type.String(), 'the reason given with the pause that left it paused, else null'),
    apiBaseUrl: Type.String({ description: "PUBLIC_BASE_URL without a trailing slash: where the platform's server sends its network calls" }),
    keyLastUsedAt: Type.Optional(
      Nullable(Timestamp, 'when the current live key was last used for an ad request, to the minute; null when not since it was made, absent when unknown (lists, or Redis not answering)'),
    ),
    testKeyLastUsedAt: Type.Optional(Nullable(Timestamp, 'the same for the test key')),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    statusChangedAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'when the platform entered its current status (a key made since changes updatedAt, not this); absent for platforms not changed since it was kept' }),
    ),
  },
  { additionalProperties: false },
);
export type Publisher = Static<typeof Publisher>;

export const PublisherList = Type.Object({ items: Type.Array(Publisher), nextCursor: NextCursor, ...ListCountFields }, { additionalProperties: false });
export type PublisherList = Static<typeof PublisherList>;

/** 201 of POST .../keys and .../test-key: the key, shown only here. */
export const IssuedKey = Type.Object({ key: Type.String(), keyCreatedAt: Timestamp }, { additionalProperties: false });
export type IssuedKey = Static<typeof IssuedKey>;

/** Optional body of POST .../keys: how long the replaced key keeps working (API.md). */
export const KeyGenerationBody = Type.Object(
  {
    previousKeyGraceSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86_400, default: 0, description: 'seconds the replaced key keeps working (a rolling deploy); 0: it stops before the answer' }),
    ),
  },
  { additionalProperties: true },
);

/** 201 of POST .../keys: the new live key, shown only here, and when the replaced key stops working. */
export const IssuedLiveKey = Type.Object(
  { key: Type.String(), keyCreatedAt: Timestamp, previousKeyExpiresAt: Nullable(Timestamp, 'when the replaced key stops working; null: it stopped before this answer, or there was none') },
  { additionalProperties: false },
);
export type IssuedLiveKey = Static<typeof IssuedLiveKey>;

/** GET .../demand: the active campaigns of the platform's format, other owners' only, by language (API.md). */
export const PublisherDemand = Type.Object(
  {
    format: literals(PLATFORM_TYPES),
    activeCampaigns: Type.Integer({ minimum: 0 }),
    languages: Type.Array(Type.Object({ language: Type.String({ description: 'an ISO 639-1 code, or all' }), activeCampaigns: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })),
    noFillReason: Type.String({
      description:
        "the Pilot-No-Fill-Reason a live ad request gets now in a language not listed (no_campaign_for_language when some language is served; else no_active_campaign, no_campaign_for_format or own_campaigns_only)",
    }),
  },
  { additionalProperties: false },
);
export type PublisherDemand = Static<typeof PublisherDemand>;
