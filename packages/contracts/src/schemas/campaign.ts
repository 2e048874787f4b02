/** The campaign contracts of the workspace API (API.md "Workspace: campaigns"). */
import { Type, type Static } from '@sinclair/typebox';
import { AccountId, HttpsUrl, Id, literals, CreativeText, ListCountFields, NextCursor, StringEnum, Timestamp } from './fields';
import { CAMPAIGN_LANGUAGES } from './languages';

export const CAMPAIGN_FORMATS = ['bot', 'channel'] as const;
export type CampaignFormat = (typeof CAMPAIGN_FORMATS)[number];
export const CAMPAIGN_STATUSES = ['draft', 'submitted', 'approved', 'active', 'paused', 'rejected'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** SPEC.md "Campaign (creative inputs)". */
export const CAMPAIGN_LIMITS = { name: 100, title: 100, text: 700, buttonText: 32 } as const;

export const CampaignFormatSchema = StringEnum(CAMPAIGN_FORMATS, 'unsupported_format', 'bot or channel');
export const CampaignLanguage = Type.String({
  enum: [...CAMPAIGN_LANGUAGES],
  'x-error-code': 'invalid_language',
  description: 'a lowercase ISO 639-1 code such as en, or all',
});

/** Body of POST /api/workspace/campaigns. */
export const CreateCampaignBody = Type.Object(
  {
    name: CreativeText(CAMPAIGN_LIMITS.name, 'internal name'),
    title: CreativeText(CAMPAIGN_LIMITS.title, 'title'),
    text: CreativeText(CAMPAIGN_LIMITS.text, 'message body', true),
    buttonText: CreativeText(CAMPAIGN_LIMITS.buttonText, 'button label'),
    format: CampaignFormatSchema,
    language: CampaignLanguage,
    destinationUrl: HttpsUrl('where a click goes'),
    imageUrl: Type.Optional(HttpsUrl('the image; absent, null or empty for none', true)),
    replaces: Type.Optional(
      Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-error-code': 'invalid_type', description: 'the id of an own campaign this draft replaces' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCampaignBody = Static<typeof CreateCampaignBody>;

/** The campaign object of every answer. */
export const Campaign = Type.Object(
  {
    id: Id,
    name: Type.String(),
    format: literals(CAMPAIGN_FORMATS),
    title: Type.String(),
    text: Type.String(),
    destinationUrl: Type.String(),
    buttonText: Type.String(),
    imageUrl: Type.Union([Type.String(), Type.Null()]),
    language: Type.String(),
    status: literals(CAMPAIGN_STATUSES),
    replaces: Type.Union([Id, Type.Null()]),
    rejectionReason: Type.Union([Type.String(), Type.Null()]),
    pauseReason: Type.Union([Type.String(), Type.Null()], { description: 'the reason given with the pause that left it paused, else null' }),
    ownerAccountId: AccountId,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Campaign = Static<typeof Campaign>;

/**
 * A transition's answer: the campaign, and whether ad serving has the change yet (`pending`: stored, in
 * effect once the service's message broker is reachable again; answered with 202).
 */
export const CampaignTransitionAnswer = Type.Composite([
  Campaign,
  Type.Object({
    propagation: Type.Union([Type.Literal('done'), Type.Literal('pending')], {
      description:
        'done (answered 200): the change was published to the network before this answer, so ad requests see it; pending (answered 202): it is stored and will reach the network within seconds, by the relay',
    }),
  }),
]);
export type CampaignTransitionAnswer = Static<typeof CampaignTransitionAnswer>;

export const CampaignList = Type.Object({ items: Type.Array(Campaign), nextCursor: NextCursor, ...ListCountFields }, { additionalProperties: false });
export type CampaignList = Static<typeof CampaignList>;
