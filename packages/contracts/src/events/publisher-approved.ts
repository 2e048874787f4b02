import type { EventEnvelope } from '../envelope';
import { publisherStateSchema, type PublisherState } from './publisher-state';

export const PUBLISHER_APPROVED = 'publisher.approved' as const;
export type PublisherApproved = EventEnvelope<typeof PUBLISHER_APPROVED, PublisherState>;
export const publisherApprovedDataSchema = publisherStateSchema;
