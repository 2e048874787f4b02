import type { EventEnvelope } from '../envelope';
import { publisherStateSchema, type PublisherState } from './publisher-state';

export const PUBLISHER_KEY_ROTATED = 'publisher.key_rotated' as const;
export type PublisherKeyRotated = EventEnvelope<typeof PUBLISHER_KEY_ROTATED, PublisherState>;
export const publisherKeyRotatedDataSchema = publisherStateSchema;
