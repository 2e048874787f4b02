/** The website placement contracts (API.md "Website placements"). */
import { Type, type Static } from '@sinclair/typebox';
import { AccountId, HttpsUrl, literals, CreativeText, StringEnum, Timestamp } from './fields';

export const SLOTS = ['home-feature', 'workspace-top', 'tr-footer'] as const;
export type Slot = (typeof SLOTS)[number];
export const PLACEMENT_STATUSES = ['draft', 'active', 'paused'] as const;
export type PlacementStatus = (typeof PLACEMENT_STATUSES)[number];

/** The same limits as a campaign's title and button label (SPEC.md). */
export const PLACEMENT_LIMITS = { title: 100, buttonText: 32 } as const;

const ScheduleTime = (description: string) =>
  Type.String({ format: 'utc-date-time', 'x-error-code': 'invalid_datetime', description: `${description}: an ISO 8601 date-time in UTC, such as 2026-01-31T12:00:00Z` });

/** Body of PUT /api/workspace/placements/{slot}. */
export const PlacementBody = Type.Object(
  {
    title: CreativeText(PLACEMENT_LIMITS.title, 'title'),
    buttonText: CreativeText(PLACEMENT_LIMITS.buttonText, 'button label'),
    destinationUrl: HttpsUrl('where a click goes'),
    imageUrl: Type.Optional(HttpsUrl('the image; absent, null or empty for none', true)),
    status: StringEnum(PLACEMENT_STATUSES, 'not_allowed', 'draft, active or paused'),
    startsAt: Type.Optional(ScheduleTime('first moment shown')),
    endsAt: Type.Optional(ScheduleTime('first moment no longer shown; after startsAt')),
  },
  { additionalProperties: false },
);
export type PlacementBody = Static<typeof PlacementBody>;

/** Body of POST /api/site/placements/{slot}/impressions. */
export const ImpressionBody = Type.Object({ placementId: Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }) }, { additionalProperties: false });
export type ImpressionBody = Static<typeof ImpressionBody>;

const SlotSchema = literals(SLOTS);

/** GET /api/site/placements/{slot}: what the site's pages show. */
export const SitePlacement = Type.Object(
  {
    slot: SlotSchema,
    placementId: Type.String(),
    title: Type.String(),
    buttonText: Type.String(),
    destinationUrl: Type.String(),
    imageUrl: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type SitePlacement = Static<typeof SitePlacement>;

/** The administrator's view of a placement. */
export const AdminPlacement = Type.Composite([
  SitePlacement,
  Type.Object({
    status: literals(PLACEMENT_STATUSES),
    startsAt: Type.Union([Timestamp, Type.Null()]),
    endsAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
    createdBy: AccountId,
  }),
]);
export type AdminPlacement = Static<typeof AdminPlacement>;

/** One slot in GET /api/workspace/placements and the answer of a PUT. */
export const SlotState = Type.Object(
  { slot: SlotSchema, placement: Type.Union([AdminPlacement, Type.Null()]), impressions: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);
export type SlotState = Static<typeof SlotState>;

export const SlotList = Type.Object({ items: Type.Array(SlotState) }, { additionalProperties: false });
export type SlotList = Static<typeof SlotList>;
