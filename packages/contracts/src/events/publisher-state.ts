import { Type, type Static } from '@sinclair/typebox';
import { PLATFORM_TYPES, PUBLISHER_STATUSES } from '../schemas/publisher';
import { AccountId, literals } from '../schemas/fields';
import { changeFactsFields } from './change-facts-state';

/** All publisher events carry the platform's state after the change (never a key or its hash). */
export const publisherStateSchema = Type.Object(
  {
    publisherId: Type.Integer({ minimum: 1 }),
    ownerAccountId: AccountId,
    status: literals(PUBLISHER_STATUSES),
    type: literals(PLATFORM_TYPES),
    link: Type.String({ minLength: 1 }),
    keyCreatedAt: Type.Union([Type.String(), Type.Null()]),
    ...changeFactsFields,
  },
  { additionalProperties: false },
);
export type PublisherState = Static<typeof publisherStateSchema>;
