import { Type, type Static } from '@sinclair/typebox';
import { CAMPAIGN_FORMATS, CAMPAIGN_STATUSES } from '../schemas/campaign';
import { AccountId, literals } from '../schemas/fields';
import { changeFactsFields } from './change-facts-state';

/** The campaign as allocation and tracking select and count by it: in every event and snapshot item. */
const campaignFields = {
  campaignId: Type.Integer({ minimum: 1 }),
  ownerAccountId: AccountId,
  status: literals(CAMPAIGN_STATUSES),
  format: literals(CAMPAIGN_FORMATS),
  language: Type.String({ pattern: '^(?:[a-z]{2}|all)$' }),
  title: Type.String({ minLength: 1 }),
  text: Type.String({ minLength: 1 }),
  buttonText: Type.String({ minLength: 1 }),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  destinationUrl: Type.String({ minLength: 1 }),
};

export type CampaignStateField = keyof typeof campaignFields;
/** The names of those fields, for a producer that copies them out of its record. */
export const CAMPAIGN_STATE_FIELDS = Object.keys(campaignFields) as CampaignStateField[];

/** All campaign events carry the campaign's full state after the change, so a consumer needs no call back. */
export const campaignStateSchema = Type.Object(
  {
    ...campaignFields,
    ...changeFactsFields,
    /** The campaign's internal name, as its owner knows it. */
    name: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type CampaignState = Static<typeof campaignStateSchema>;
