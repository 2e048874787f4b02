/**
 * The machine-readable description of the workspace API (API.md "Workspace ..." and "Website
 * placements"), OpenAPI 3.1, generated from the contracts' schemas: the bodies the services validate with
 * are the ones documented here. Served by the gateway at GET /api/workspace/openapi.json.
 */
import type { TSchema } from '@sinclair/typebox';
import { Campaign, CampaignList, CampaignTransitionAnswer, CreateCampaignBody } from '../schemas/campaign';
import { OptionalReasonBody, ReasonBody } from '../schemas/fields';
import { Problem, ValidationProblem } from '../schemas/network';
import { ImpressionBody, PlacementBody, SitePlacement, SLOTS, SlotList, SlotState } from '../schemas/placement';
import { IssuedKey, IssuedLiveKey, KeyGenerationBody, NewPublisherBody, Publisher, PublisherDemand, PublisherList } from '../schemas/publisher';
import { AuditList, Breakdown, LoginStarted, LoginStatus, NotificationSettings, NotificationSettingsBody, Report, Session, StatsAnswer } from '../schemas/workspace';

export const WORKSPACE_API_VERSION = '0.1.0';

const SCHEMAS: Record<string, TSchema> = {
  CreateCampaignBody,
  Campaign,
  CampaignTransitionAnswer,
  CampaignList,
  ReasonBody,
  OptionalReasonBody,
  NewPublisherBody,
  Publisher,
  PublisherList,
  IssuedKey,
  IssuedLiveKey,
  KeyGenerationBody,
  PublisherDemand,
  PlacementBody,
  ImpressionBody,
  SitePlacement,
  SlotState,
  SlotList,
  Session,
  LoginStarted,
  LoginStatus,
  StatsAnswer,
  Breakdown,
  Report,
  AuditList,
  NotificationSettings,
  NotificationSettingsBody,
  Problem,
  ValidationProblem,
};
type SchemaName = keyof typeof SCHEMAS;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: SchemaName) => ({ 'application/json': { schema: ref(name) } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });

const NOT_SIGNED_IN = problem('Not signed in (not_signed_in)');
const ORIGIN_REFUSED = problem('A write from another origin than the site (origin_refused), or an account that may not do this');
const INVALID = { description: 'Invalid body: every failing field with its stable code (validation_failed)', content: { 'application/problem+json': { schema: ref('ValidationProblem') } } };
const INVALID_TRANSITION = problem('Not allowed from the current status (invalid_transition)');
const LIST_REFUSED = problem('An unknown status, a search text longer than 100 characters, a limit outside 1 to 100, a cursor that is not one, an ownerAccountId that is not an account id (invalid_status, invalid_search, invalid_limit, invalid_cursor, invalid_owner_account_id, invalid_sort, invalid_ids, invalid_count)');
/** What every paged list takes besides its filters. */
const LIST_PARAMETERS = [
  { name: 'ownerAccountId', in: 'query', required: false, description: 'an administrator: only this account\'s records; anyone else may name only their own account', schema: { type: 'string', pattern: '^[0-9]{1,20}$' } },
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
  { name: 'cursor', in: 'query', required: false, description: 'the nextCursor of the previous page', schema: { type: 'string' } },
  { name: 'sort', in: 'query', required: false, description: 'newest (default) or oldest first, by creation', schema: { type: 'string', enum: ['newest', 'oldest'] } },
  { name: 'ids', in: 'query', required: false, description: 'only these records: up to 100 ids separated by commas', schema: { type: 'string' } },
  { name: 'count', in: 'query', required: false, description: 'true: the answer also says how many records the filters match (total, totalCapped)', schema: { type: 'boolean' } },
];

interface Operation {
  summary: string;
  body?: SchemaName;
  bodyRequired?: boolean;
  answer: [status: string, schema: SchemaName | null, description: string];
  problems?: Record<string, object>;
  session?: boolean;
  /** A workspace write: held to the account's write limit, its body to the gateway's size limit. */
  write?: boolean;
}

const WRITE_PROBLEMS = {
  '413': problem('The body is over the gateway\'s limit, however it is sent (payload_too_large)'),
  '429': problem('Too many workspace changes from this account: WORKSPACE_WRITE_LIMIT_POINTS a minute (rate_limited, with Retry-After)'),
};

function operation(id: string, op: Operation): Record<string, unknown> {
  const [status, schema, description] = op.answer;
  const session = op.session ?? true;
  return {
    operationId: id,
    summary: op.summary,
    ...(session ? {} : { security: [] }),
    ...(op.body ? { requestBody: { required: op.bodyRequired ?? true, content: json(op.body) } } : {}),
    responses: {
      [status]: schema ? { description, content: json(schema) } : { description },
      ...(session ? { '401': NOT_SIGNED_IN } : {}),
      ...(op.write ? WRITE_PROBLEMS : {}),
      ...op.problems,
      '503': problem('Service unavailable: retry after Retry-After seconds'),
    },
  };
}

const idParameter = (what: string) => ({ name: 'id', in: 'path', required: true, description: `the ${what} id`, schema: { type: 'integer', minimum: 1 } });
const slotParameter = { name: 'slot', in: 'path', required: true, schema: { type: 'string', enum: [...SLOTS] } };
const notFound = (what: string) => problem(`No such ${what}, or not visible to this account`);

function transition(id: string, summary: string, what: 'campaign' | 'publisher', answer: SchemaName, body?: SchemaName, bodyRequired?: boolean) {
  // A campaign's change reaches the network through its events: 202 says it is stored but not yet published.
  const pending: Record<string, object> = what === 'campaign' ? { '202': { description: 'The campaign after the change, stored; its publication to the network is pending (propagation: pending)', content: json(answer) } } : {};
  return {
    post: operation(id, {
      summary,
      ...(body ? { body, bodyRequired } : {}),
      answer: ['200', answer, `The ${what} after the change`],
      write: true,
      problems: { ...pending, '403': ORIGIN_REFUSED, '404': notFound(what), '409': INVALID_TRANSITION, ...(body ? { '422': INVALID } : {}) },
    }),
  };
}

/** The document (a plain JSON value). */
export function workspaceOpenApi(): Record<string, unknown> {
  const campaignTransition = (name: string, summary: string, body?: SchemaName, bodyRequired?: boolean) => ({
    parameters: [idParameter('campaign')],
    ...transition(`${name}Campaign`, summary, 'campaign', 'CampaignTransitionAnswer', body, bodyRequired),
  });
  const publisherTransition = (name: string, summary: string, body?: SchemaName, bodyRequired?: boolean) => ({
    parameters: [idParameter('publisher')],
    ...transition(`${name}Publisher`, summary, 'publisher', 'Publisher', body, bodyRequired),
  });
  const document = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Publisher pilot workspace API',
      summary: 'Sign-in, campaigns, publisher platforms, totals, audit, notification settings and website placements of the pilot workspace.',
      description:
        'The API of the workspace site (camelCase fields). A session cookie from the bot-confirmed sign-in authenticates every ' +
        'call under /api/workspace/; a write (POST, PUT, PATCH, DELETE) must carry the Origin of the site. ' +
        'Errors are application/problem+json (RFC 9457) with a stable snake_case code; a 422 lists every failing field in errors[].',
      version: WORKSPACE_API_VERSION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'the service origin (PUBLIC_BASE_URL)' }],
    security: [{ session: [] }],
    paths: {
      '/api/auth/login': {
        post: operation('startLogin', { summary: 'Start a bot-confirmed sign-in', session: false, answer: ['201', 'LoginStarted', 'A pending sign-in request'], problems: { '429': problem('Too many sign-in attempts (rate_limited)') } }),
      },
      '/api/auth/login/{requestId}': {
        parameters: [{ name: 'requestId', in: 'path', required: true, schema: { type: 'string' } }],
        get: operation('pollLogin', { summary: 'Read a sign-in request; the first read after confirmation sets the session cookie', session: false, answer: ['200', 'LoginStatus', 'The request status'], problems: { '404': problem('No such request in this browser (login_request_not_found)') } }),
      },
      '/api/auth/telegram-webhook': {
        post: {
          ...operation('telegramWebhook', { summary: "The sign-in bot's webhook (a Telegram Update)", session: false, answer: ['200', null, 'Always, with the right secret; may carry a sendMessage (the question to confirm, Confirm first), editMessageText or answerCallbackQuery body'], problems: { '401': problem('Wrong or missing X-Telegram-Bot-Api-Secret-Token (webhook_secret_invalid)') } }),
          requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
      '/api/auth/session': { get: operation('readSession', { summary: 'The signed-in account', answer: ['200', 'Session', 'The account'] }) },
      '/api/auth/logout': { post: operation('logout', { summary: 'End the session on the server', session: false, answer: ['204', null, 'Signed out'] }) },
      '/api/workspace/campaigns': {
        post: operation('createCampaign', { write: true, summary: 'Create a draft campaign', body: 'CreateCampaignBody', answer: ['201', 'Campaign', 'The new draft'], problems: { '403': ORIGIN_REFUSED, '409': problem('The 101st record of an account (campaign_limit)'), '422': INVALID } }),
        get: {
          ...operation('listCampaigns', { summary: 'Campaigns, newest first (ties by id), a page at a time: own records; an administrator gets all', answer: ['200', 'CampaignList', 'A page of campaigns'], problems: { '400': LIST_REFUSED, '403': problem('ownerAccountId names another account and the caller is not an administrator (admin_only)') } }),
          parameters: [
            { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['draft', 'submitted', 'approved', 'active', 'paused', 'rejected'] } },
            { name: 'q', in: 'query', required: false, description: 'a case-insensitive part of the name or the title', schema: { type: 'string', maxLength: 100 } },
            ...LIST_PARAMETERS,
          ],
        },
      },
      '/api/workspace/campaigns/{id}': {
        parameters: [idParameter('campaign')],
        get: operation('getCampaign', { summary: 'One campaign (owner, administrator)', answer: ['200', 'Campaign', 'The campaign'], problems: { '404': notFound('campaign') } }),
      },
      '/api/workspace/campaigns/{id}/submit': campaignTransition('submit', 'draft or rejected -> submitted (owner)'),
      '/api/workspace/campaigns/{id}/approve': campaignTransition('approve', 'submitted -> approved (administrator)'),
      '/api/workspace/campaigns/{id}/reject': campaignTransition('reject', 'submitted -> rejected, with a reason (administrator)', 'ReasonBody'),
      '/api/workspace/campaigns/{id}/activate': campaignTransition('activate', 'approved or paused -> active (administrator)'),
      '/api/workspace/campaigns/{id}/pause': campaignTransition('pause', 'active -> paused, with an optional reason (owner, administrator)', 'OptionalReasonBody', false),
      '/api/workspace/campaigns/{id}/duplicate': {
        parameters: [idParameter('campaign')],
        post: operation('duplicateCampaign', {
          write: true,
          summary: 'A new draft with the same creative inputs, its name followed by " (copy)" (cut to fit its 100 characters), replacing nothing (owner)',
          answer: ['201', 'Campaign', 'The new draft'],
          problems: { '403': ORIGIN_REFUSED, '404': problem('No such campaign of this account (campaign_not_found): an administrator duplicates only its own'), '409': problem('The 101st record of an account (campaign_limit)') },
        }),
      },
      '/api/workspace/publishers': {
        post: operation('createPublisher', { write: true, summary: 'Register a draft publisher platform', body: 'NewPublisherBody', answer: ['201', 'Publisher', 'The new draft'], problems: { '403': ORIGIN_REFUSED, '409': problem('The 101st platform of an account (publisher_limit)'), '422': INVALID } }),
        get: {
          ...operation('listPublishers', { summary: 'Platforms, newest first (ties by id), a page at a time: own records; an administrator gets all', answer: ['200', 'PublisherList', 'A page of platforms'], problems: { '400': LIST_REFUSED, '403': problem('ownerAccountId names another account and the caller is not an administrator (admin_only)') } }),
          parameters: [
            { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['draft', 'submitted', 'approved', 'paused', 'rejected'] } },
            { name: 'q', in: 'query', required: false, description: 'a case-insensitive part of the link', schema: { type: 'string', maxLength: 100 } },
            ...LIST_PARAMETERS,
          ],
        },
      },
      '/api/workspace/publishers/{id}': {
        parameters: [idParameter('publisher')],
        get: operation('getPublisher', { summary: 'One platform (owner, administrator)', answer: ['200', 'Publisher', 'The platform'], problems: { '404': notFound('publisher') } }),
      },
      '/api/workspace/publishers/{id}/submit': publisherTransition('submit', 'draft or rejected -> submitted (owner)'),
      '/api/workspace/publishers/{id}/approve': publisherTransition('approve', 'submitted or paused -> approved (administrator)'),
      '/api/workspace/publishers/{id}/reject': publisherTransition('reject', 'submitted, approved or paused -> rejected, with a reason (administrator)', 'ReasonBody'),
      '/api/workspace/publishers/{id}/pause': publisherTransition('pause', 'approved -> paused, with an optional reason (administrator)', 'OptionalReasonBody', false),
      '/api/workspace/publishers/{id}/keys': {
        parameters: [idParameter('publisher')],
        post: operation('rotatePublisherKey', {
          write: true,
          summary:
            'A new live key, shown only here (owner, platform approved). The replaced key keeps working previousKeyGraceSeconds (a rolling deploy), ' +
            'else it stops before the answer; an older previous key stops at once (at most one previous key)',
          body: 'KeyGenerationBody',
          bodyRequired: false,
          answer: ['201', 'IssuedLiveKey', 'The key, and when the replaced key stops working'],
          problems: { '403': ORIGIN_REFUSED, '404': notFound('publisher'), '409': INVALID_TRANSITION, '422': INVALID, '429': problem('Too many keys generated by this account (KEY_ROTATION_LIMIT_POINTS), or too many workspace changes (rate_limited, with Retry-After)') },
        }),
      },
      '/api/workspace/publishers/{id}/keys/previous': {
        parameters: [idParameter('publisher')],
        delete: operation('endPreviousKey', { write: true, summary: 'The previous live key stops working before the answer (owner); 204 when there is none too', answer: ['204', null, 'Ended'], problems: { '403': ORIGIN_REFUSED, '404': notFound('publisher') } }),
      },
      '/api/workspace/publishers/{id}/demand': {
        parameters: [idParameter('publisher')],
        get: operation('readPublisherDemand', {
          summary: "What the network could serve this platform now: active campaigns of its format, other owners' only, by language (all counted under its own name) (owner, administrator)",
          answer: ['200', 'PublisherDemand', 'The demand'],
          problems: { '404': notFound('publisher') },
        }),
      },
      '/api/workspace/publishers/{id}/test-key': {
        parameters: [idParameter('publisher')],
        post: operation('makeTestKey', { write: true, summary: "The platform's one sandbox test key, shown only here; replaces the previous one (owner)", answer: ['201', 'IssuedKey', 'The test key'], problems: { '403': ORIGIN_REFUSED, '404': notFound('publisher'), '429': problem('Too many keys generated by this account (KEY_ROTATION_LIMIT_POINTS), or too many workspace changes (rate_limited, with Retry-After)') } }),
        delete: operation('deleteTestKey', { write: true, summary: 'The test key stops working (owner)', answer: ['204', null, 'Deleted'], problems: { '403': ORIGIN_REFUSED, '404': notFound('publisher') } }),
      },
      '/api/workspace/stats': {
        get: {
          ...operation('readStats', {
            summary: 'Totals over the delivery records visible to the account, by day or (granularity=hour) by hour',
            answer: ['200', 'StatsAnswer', 'Totals and days, or (granularity=hour) hours'],
            problems: { '400': problem('An invalid filter or date; with granularity=hour, from and to missing or over 7 days apart (invalid_hour_range), or hours no longer kept (hours_not_kept)') },
          }),
          parameters: [
            { name: 'campaignId', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            { name: 'publisherId', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
            { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
            { name: 'granularity', in: 'query', required: false, schema: { type: 'string', enum: ['day', 'hour'], default: 'day' } },
          ],
        },
      },
      '/api/workspace/stats/breakdown': {
        get: {
          ...operation('readStatsBreakdown', {
            summary: 'The totals of stats per campaign or per platform, highest first (ties by id), paged',
            answer: ['200', 'Breakdown', 'A page of items'],
            problems: { '400': problem('An invalid dimension, sort, limit, cursor, ids, filter or date (invalid_breakdown, invalid_sort, invalid_limit, invalid_cursor, invalid_ids, ...)') },
          }),
          parameters: [
            { name: 'by', in: 'query', required: true, schema: { type: 'string', enum: ['campaign', 'publisher'] } },
            { name: 'campaignId', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            { name: 'publisherId', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
            { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
            { name: 'sort', in: 'query', required: false, schema: { type: 'string', enum: ['adRequests', 'confirmedDeliveries', 'clickedLinks'], default: 'adRequests' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
            { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'ids', in: 'query', required: false, description: 'only these campaigns or platforms (as by names): up to 100 ids separated by commas', schema: { type: 'string' } },
          ],
        },
      },
      '/api/workspace/stats/report': {
        get: {
          ...operation('readStatsReport', {
            summary: 'The figures of stats grouped by one to three dimensions, sorted and paged, with the totals of every row; format=csv: text/csv of every row',
            answer: ['200', 'Report', 'A page of rows and the totals (format=csv: text/csv, a header row then every row)'],
            problems: { '400': problem('An unknown or repeated dimension, more than three, or day with hour (invalid_dimension); an invalid sort, limit, cursor, format, filter or date (invalid_sort, invalid_limit, invalid_cursor, invalid_format, ...); hour over more than 7 days (invalid_hour_range) or no longer kept (hours_not_kept)') },
          }),
          parameters: [
            { name: 'by', in: 'query', required: true, description: 'one to three of day, hour, campaign, publisher, language, format, comma-separated; not day with hour', schema: { type: 'string' } },
            { name: 'campaignId', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            { name: 'publisherId', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
            { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
            { name: 'sort', in: 'query', required: false, description: 'a figure (highest first) or a dimension of by (ascending); ties by the dimensions in by order. Default: the first dimension if it is day or hour, else adRequests', schema: { type: 'string' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
            { name: 'cursor', in: 'query', required: false, description: 'the nextCursor of the previous page', schema: { type: 'string' } },
            { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'csv'], default: 'json' } },
          ],
        },
      },
      '/api/workspace/audit': {
        get: {
          ...operation('readAudit', { summary: 'Audit entries, newest first, a page at a time down to the oldest: all for an administrator, else those of own records', answer: ['200', 'AuditList', 'A page of entries'], problems: { '400': problem('An invalid filter, limit or cursor (invalid_entity, invalid_entity_id, invalid_action, invalid_date, invalid_date_range, invalid_limit, invalid_cursor)') } }),
          parameters: [
            { name: 'entity', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'entityId', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'action', in: 'query', required: false, description: 'only entries of this action (created, submitted, approved, key_rotated, signed_in, ...)', schema: { type: 'string', pattern: '^[a-z][a-z_-]{0,39}$' } },
            { name: 'from', in: 'query', required: false, description: 'only entries on or after this UTC date', schema: { type: 'string', format: 'date' } },
            { name: 'to', in: 'query', required: false, description: 'only entries on or before this UTC date', schema: { type: 'string', format: 'date' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
            { name: 'cursor', in: 'query', required: false, description: 'the nextCursor of the previous page', schema: { type: 'string' } },
          ],
        },
      },
      '/api/workspace/notifications': {
        get: operation('readNotificationSettings', { summary: 'What the sign-in bot tells this account (defaults: reviews on; queue on for administrators)', answer: ['200', 'NotificationSettings', 'The settings in force'] }),
        put: operation('setNotificationSettings', { summary: 'Change what the sign-in bot tells this account; a field left out keeps its value', body: 'NotificationSettingsBody', answer: ['200', 'NotificationSettings', 'The settings now in force'], problems: { '403': ORIGIN_REFUSED, '422': INVALID } }),
      },
      '/api/workspace/placements': {
        get: operation('listPlacements', { summary: 'The three slots with their current placements and impressions (administrator)', answer: ['200', 'SlotList', 'The slots'], problems: { '403': problem('Administrators only') } }),
      },
      '/api/workspace/placements/{slot}': {
        parameters: [slotParameter],
        put: operation('setPlacement', { write: true, summary: "Set a slot's current placement (administrator)", body: 'PlacementBody', answer: ['200', 'SlotState', 'The slot'], problems: { '403': ORIGIN_REFUSED, '404': problem('Unknown slot'), '422': INVALID } }),
      },
      '/api/site/placements/{slot}': {
        parameters: [slotParameter],
        get: operation('showPlacement', { summary: 'The placement a site page shows, when active and in its schedule', session: false, answer: ['200', 'SitePlacement', 'The placement'], problems: { '204': { description: 'Nothing to show' }, '404': problem('Unknown slot') } }),
      },
      '/api/site/placements/{slot}/impressions': {
        parameters: [slotParameter],
        post: operation('countImpression', { summary: 'Count one impression (the site pages only)', session: false, body: 'ImpressionBody', answer: ['204', null, 'Counted while the placement is showable'], problems: { '404': problem('Unknown slot'), '422': INVALID, '429': problem('Too many impressions from this address (rate_limited)') } }),
      },
    },
    components: {
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'pilot_session', description: 'The HttpOnly session cookie set by the sign-in: SESSION_COOKIE, pilot_session by default, __Host- prefixed on an https site' } },
      schemas: SCHEMAS,
    },
  };
  // A plain JSON value: the schemas' TypeBox markers (symbols) stay behind.
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}
