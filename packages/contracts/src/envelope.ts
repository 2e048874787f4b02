import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';

/** Every event on the bus travels in this envelope; `type` is also the routing key. */
export const envelopeSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64 }),
    type: Type.String({ pattern: '^[a-z]+(?:_[a-z]+)*\\.[a-z]+(?:_[a-z]+)*$' }),
    version: Type.Integer({ minimum: 1 }),
    occurredAt: Type.String({ format: 'date-time' }),
    aggregateId: Type.String({ minLength: 1, maxLength: 64 }),
    aggregateVersion: Type.Integer({ minimum: 1 }),
    data: Type.Object({}),
  },
  { additionalProperties: false },
);

/** The envelope of an event of type `TType` whose data is `TData` (each event's data schema says which). */
export type EventEnvelope<TType extends string = string, TData = unknown> = Omit<Static<typeof envelopeSchema>, 'type' | 'data'> & {
  type: TType;
  data: TData;
};

export function createEnvelope<TType extends string, TData>(
  type: TType,
  aggregateId: string,
  aggregateVersion: number,
  data: TData,
  occurredAt: Date = new Date(),
): EventEnvelope<TType, TData> {
  return { id: randomUUID(), type, version: 1, occurredAt: occurredAt.toISOString(), aggregateId, aggregateVersion, data };
}
