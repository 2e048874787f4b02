import { Type } from '@sinclair/typebox';
import { AccountId } from '../schemas/fields';

/**
 * Who made a change and why, carried by campaign and publisher events for the people the change concerns
 * (the notification service tells an owner what someone else did). Optional: events written before these
 * fields existed, and snapshots, leave them out.
 */
export const changeFactsFields = {
  /** The account that made the change. */
  actorAccountId: Type.Optional(AccountId),
  /** The reason given with a rejection or a pause; null when none was given. */
  reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};
