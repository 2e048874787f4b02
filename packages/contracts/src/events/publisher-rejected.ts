import type { EventEnvelope } from '../envelope';
import { publisherStateSchema, type PublisherState } from './publisher-state';

export const PUBLISHER_REJECTED = 'publisher.rejected' as const;
export type PublisherRejected = EventEnvelope<typeof PUBLISHER_REJECTED, PublisherState>;
export const publisherRejectedDataSchema = publisherStateSchema;
