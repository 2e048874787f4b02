import type { EventEnvelope } from '../envelope';
import { publisherStateSchema, type PublisherState } from './publisher-state';

export const PUBLISHER_PAUSED = 'publisher.paused' as const;
export type PublisherPaused = EventEnvelope<typeof PUBLISHER_PAUSED, PublisherState>;
export const publisherPausedDataSchema = publisherStateSchema;
