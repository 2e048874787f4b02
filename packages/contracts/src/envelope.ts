import { randomUUID } from 'node:crypto';

/** Every event on the bus travels in this envelope; `type` is also the routing key. */
export interface EventEnvelope<TType extends string = string, TData = unknown> {
  id: string;
  type: TType;
  version: number;
  occurredAt: string;
  aggregateId: string;
  aggregateVersion: number;
  data: TData;
}

export const envelopeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'version', 'occurredAt', 'aggregateId', 'aggregateVersion', 'data'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 64 },
    type: { type: 'string', pattern: '^[a-z]+(?:_[a-z]+)*\\.[a-z]+(?:_[a-z]+)*$' },
    version: { type: 'integer', minimum: 1 },
    occurredAt: { type: 'string', format: 'date-time' },
    aggregateId: { type: 'string', minLength: 1, maxLength: 64 },
    aggregateVersion: { type: 'integer', minimum: 1 },
    data: { type: 'object' },
  },
} as const;

export function createEnvelope<TType extends string, TData>(
  type: TType,
  aggregateId: string,
  aggregateVersion: number,
  data: TData,
  occurredAt: Date = new Date(),
): EventEnvelope<TType, TData> {
  return { id: randomUUID(), type, version: 1, occurredAt: occurredAt.toISOString(), aggregateId, aggregateVersion, data };
}

/**
 * The JSON Schema of an event's data. ajv's JSONSchemaType cannot express our nullable-but-required fields
 * under strict null checks, so the schema and the TypeScript type are kept side by side in one file, and a
 * unit test checks that sample events of every type validate.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export type DataSchema<T> = Record<string, unknown>;
