import type { EventEnvelope } from '../envelope';
import { publisherStateSchema, type PublisherState } from './publisher-state';

export const PUBLISHER_SUBMITTED = 'publisher.submitted' as const;
export type PublisherSubmitted = EventEnvelope<typeof PUBLISHER_SUBMITTED, PublisherState>;
export const publisherSubmittedDataSchema = publisherStateSchema;
