import type { ValidateFunction } from 'ajv';
import { envelopeSchema, type EventEnvelope } from './envelope';
import { ALLOCATION_CREATED, allocationCreatedDataSchema, type AllocationCreated } from './events/allocation-created';
import { CAMPAIGN_ACTIVATED, type CampaignActivated } from './events/campaign-activated';
import { CAMPAIGN_APPROVED, type CampaignApproved } from './events/campaign-approved';
import { CAMPAIGN_PAUSED, type CampaignPaused } from './events/campaign-paused';
import { CAMPAIGN_REJECTED, type CampaignRejected } from './events/campaign-rejected';
import { campaignStateSchema } from './events/campaign-state';
import { CAMPAIGN_SUBMITTED, type CampaignSubmitted } from './events/campaign-submitted';
import { PLACEMENT_CHANGED, placementChangedDataSchema, type PlacementChanged } from './events/placement-changed';
import { PUBLISHER_APPROVED, type PublisherApproved } from './events/publisher-approved';
import { PUBLISHER_KEY_ROTATED, type PublisherKeyRotated } from './events/publisher-key-rotated';
import { PUBLISHER_PAUSED, type PublisherPaused } from './events/publisher-paused';
import { PUBLISHER_REJECTED, type PublisherRejected } from './events/publisher-rejected';
import { publisherStateSchema } from './events/publisher-state';
import { PUBLISHER_SUBMITTED, type PublisherSubmitted } from './events/publisher-submitted';
import { ajv } from './validation/ajv';

/** The data schema of every event type that may travel on the bus. */
export const eventDataSchemas = {
  [CAMPAIGN_SUBMITTED]: campaignStateSchema,
  [CAMPAIGN_APPROVED]: campaignStateSchema,
  [CAMPAIGN_ACTIVATED]: campaignStateSchema,
  [CAMPAIGN_PAUSED]: campaignStateSchema,
  [CAMPAIGN_REJECTED]: campaignStateSchema,
  [PUBLISHER_SUBMITTED]: publisherStateSchema,
  [PUBLISHER_APPROVED]: publisherStateSchema,
  [PUBLISHER_PAUSED]: publisherStateSchema,
  [PUBLISHER_REJECTED]: publisherStateSchema,
  [PUBLISHER_KEY_ROTATED]: publisherStateSchema,
  [ALLOCATION_CREATED]: allocationCreatedDataSchema,
  [PLACEMENT_CHANGED]: placementChangedDataSchema,
} as const;

export type EventType = keyof typeof eventDataSchemas;

export type CampaignEvent = CampaignSubmitted | CampaignApproved | CampaignActivated | CampaignPaused | CampaignRejected;
export type PublisherEvent = PublisherSubmitted | PublisherApproved | PublisherPaused | PublisherRejected | PublisherKeyRotated;
export type KnownEvent = CampaignEvent | PublisherEvent | AllocationCreated | PlacementChanged;

export const EVENT_TYPES = Object.keys(eventDataSchemas) as EventType[];

export function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(eventDataSchemas, type);
}

export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEventError';
  }
}

const validateEnvelope = ajv.compile(envelopeSchema);
const dataValidators = new Map<string, ValidateFunction>(
  Object.entries(eventDataSchemas).map(([type, schema]) => [type, ajv.compile(schema)]),
);

/** Checks the envelope and the data of a known event type; throws InvalidEventError naming what is wrong. */
export function assertValidEvent(candidate: unknown): asserts candidate is KnownEvent {
  if (!validateEnvelope(candidate)) {
    throw new InvalidEventError(`invalid envelope: ${ajv.errorsText(validateEnvelope.errors)}`);
  }
  const envelope = candidate as EventEnvelope;
  const validateData = dataValidators.get(envelope.type);
  if (!validateData) throw new InvalidEventError(`unknown event type ${envelope.type}`);
  if (!validateData(envelope.data)) {
    throw new InvalidEventError(`invalid ${envelope.type} data: ${ajv.errorsText(validateData.errors)}`);
  }
}
