/**
 * Tracking's HTTP side, thin: parse, call a use case, map its result.
 *   POST /api/network/delivery            publisher key; confirms a delivery (SPEC.md, API.md); a test key
 *                                         may force 404 or 503 with X-Pilot-Test-Answer
 *   any other method on a network path    405 method_not_allowed with Allow
 *   GET|HEAD /api/network/click/:token    redirects to the campaign destination; GET counts once; a dead
 *                                         link is a page for browsers (http/dead-link-page.ts)
 *   GET /api/workspace/stats              the three totals and their days (or hours), over visible records
 *   GET /api/workspace/stats/breakdown    the same totals per campaign or platform, sorted and paged
 *   GET /api/workspace/stats/report       the same totals grouped by one to three dimensions, paged or CSV
 */
import { requirePrincipal, problems, sendProblem, type HttpError } from '@pilot/platform';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import {
  bodyMediaRefusal,
  characterCount,
  DELIVERY_BODY_LIMIT,
  DELIVERY_BODY_MAX_BYTES,
  parseDeliveryBody,
  parseDeliveryTestAnswer,
  utf8Text,
} from '../domain/delivery';
import { parseBreakdownQuery } from '../domain/breakdown';
import { parseGranularity, parseStatsQuery } from '../domain/stats';
import { confirmDelivery } from '../use-cases/confirm-delivery';
import type { TrackingDeps } from '../use-cases/deps';
import { openClickLink } from '../use-cases/open-click-link';
import { readBreakdown } from '../use-cases/read-breakdown';
import { readHourlyStats, readStats } from '../use-cases/read-stats';
import { ReportSnapshots } from '../use-cases/report-snapshots';
import { readReport, reportCsv } from '../use-cases/read-report';
import { parseReportQuery } from '../domain/report';
import { sendCsv } from './send-csv';
import { deadLinkPages } from './dead-link-page';
import { readRawBody } from './raw-body';
import type { TrackingCounters } from './tracking-counters';

type AsyncHandler = (req: Request, res: Response) => Promise<void>;

/** Runs `work`, passing its failure to `failed` (the business counters) and then to Express. */
function handle(work: AsyncHandler, failed: (error: unknown) => void = () => undefined): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    work(req, res).catch((error: unknown) => {
      failed(error);
      next(error);
    });
  };
}

const DETAIL: Record<string, string> = {
  token_not_found: 'No current allocation of this publisher has this token',
  token_expired: 'The token expired (one hour after allocation)',
  link_expired: 'The link expired (one hour after allocation)',
  campaign_inactive: 'The campaign of this link is no longer active',
  publisher_inactive: 'The publisher of this link is no longer active',
};

const TEST_ANSWER_HEADER = 'x-pilot-test-answer';

/** The answer X-Pilot-Test-Answer forces on a test key's confirmation (the sandbox), a 400 for a bad value, or none. */
function forcedDeliveryAnswer(raw: unknown): HttpError | null {
  const choice = parseDeliveryTestAnswer(raw);
  if (!choice.ok) return problems.badRequest('invalid_test_answer', choice.detail);
  if (choice.forced === '404') return problems.notFound('token_expired', DETAIL.token_expired);
  if (choice.forced === '503') return problems.unavailable('Forced by X-Pilot-Test-Answer: 503 (test key)');
  return null;
}

/** One rule for every network path (API.md): a method it does not serve is 405 with Allow. */
function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Allow', allow);
    next(problems.methodNotAllowed());
  };
}

export function mountRoutes(app: Express, deps: TrackingDeps, counters: TrackingCounters): void {
  const reportSnapshots = new ReportSnapshots();
  app.post(
    '/api/network/delivery',
    handle(async (req, res) => {
      const authenticated = await deps.publishers.authenticate(req.headers.authorization);
      if (!authenticated.ok) throw problems.publisherKeyRefused(authenticated.refusal.code, authenticated.refusal.detail);
      const owner = authenticated.holder;

      const mediaRefusal = bodyMediaRefusal(req.headers['content-type'], req.headers['content-encoding']);
      if (mediaRefusal) {
        req.resume(); // the body is not read: drain it so the connection stays usable
        throw problems.unsupportedMediaType(mediaRefusal);
      }
      const raw = await readRawBody(req, DELIVERY_BODY_MAX_BYTES);
      if (!raw.ok && raw.reason === 'unreadable') throw problems.badRequest('invalid_body', 'The body could not be read');
      if (!raw.ok && raw.reason === 'not_signed') throw problems.unauthorized('internal_signature_invalid', 'The body is not the one the gateway signed');
      if (!raw.ok) throw problems.payloadTooLarge(`The body must not exceed ${DELIVERY_BODY_LIMIT} characters`);
      const text = utf8Text(raw.bytes);
      if (text === null) throw problems.unsupportedMediaType('Send the body as UTF-8 JSON text');
      if (characterCount(text) > DELIVERY_BODY_LIMIT) throw problems.payloadTooLarge(`The body must not exceed ${DELIVERY_BODY_LIMIT} characters`);
      const body = parseDeliveryBody(text);
      if (!body.ok) throw problems.badRequest(body.code, body.detail);
      if (owner.keyKind === 'test') {
        const forced = forcedDeliveryAnswer(req.headers[TEST_ANSWER_HEADER]);
        res.setHeader('X-Pilot-Test', 'true');
        if (forced) {
          if (forced.status === 400) throw forced;
          counters.confirmationForced(forced.status);
          sendProblem(res, forced);
          return;
        }
      }

      const result = await confirmDelivery(deps, owner.publisherId, owner.keyKind, body.token);
      if (!result.ok) throw problems.notFound(result.code, DETAIL[result.code]);
      counters.confirmed(result.firstConfirmation, result.test);
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json({ status: 'confirmed', first_confirmation: result.firstConfirmation });
    }, counters.confirmationFailed),
  );

  app.all('/api/network/delivery', methodNotAllowed('POST'));

  // Express answers HEAD with the GET route; the use case tells them apart and never counts a HEAD.
  app.get(
    '/api/network/click/:token',
    handle(async (req, res) => {
      const token = req.params.token;
      const result = await openClickLink(deps, typeof token === 'string' ? token : '', req.method, req.headers['user-agent']);
      if (!result.ok) {
        throw result.status === 404 ? problems.notFound(result.code, 'No such link') : problems.gone(result.code, DETAIL[result.code] ?? 'Gone');
      }
      res.setHeader('Cache-Control', 'no-store');
      counters.clicked(result.click, result.filter);
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.redirect(302, result.destination);
    }, counters.clickFailed),
  );
  app.all('/api/network/click/:token', methodNotAllowed('GET, HEAD'));
  // A person's browser gets a 404 or 410 of a click link as a page of the site, not as problem+json.
  app.use('/api/network/click', deadLinkPages);

  app.get(
    '/api/workspace/stats',
    handle(async (req, res) => {
      const principal = requirePrincipal(req);
      const parsed = parseStatsQuery(req.query as Record<string, unknown>);
      if (!parsed.ok) throw problems.badRequest(parsed.code, parsed.detail);
      const granularity = parseGranularity(req.query as Record<string, unknown>, parsed.filter, deps.clock.now());
      if (!granularity.ok) throw problems.badRequest(granularity.code, granularity.detail);
      const filter = { ...parsed.filter, visibleTo: principal.admin ? undefined : principal.accountId };
      const { from, to } = filter;
      const answer = granularity.granularity === 'hour' && from !== undefined && to !== undefined ? await readHourlyStats(deps, { ...filter, from, to }) : await readStats(deps, filter);
      res.setHeader('Cache-Control', 'no-store');
      res.json(answer);
    }),
  );

  app.get(
    '/api/workspace/stats/breakdown',
    handle(async (req, res) => {
      const principal = requirePrincipal(req);
      const parsed = parseBreakdownQuery(req.query as Record<string, unknown>);
      if (!parsed.ok) throw problems.badRequest(parsed.code, parsed.detail);
      const answer = await readBreakdown(deps, parsed.query, principal.admin ? undefined : principal.accountId);
      res.setHeader('Cache-Control', 'no-store');
      res.json(answer);
    }),
  );

  app.get(
    '/api/workspace/stats/report',
    handle(async (req, res) => {
      const principal = requirePrincipal(req);
      const parsed = parseReportQuery(req.query as Record<string, unknown>, deps.clock.now());
      if (!parsed.ok) throw problems.badRequest(parsed.code, parsed.detail);
      const visibleTo = principal.admin ? undefined : principal.accountId;
      res.setHeader('Cache-Control', 'no-store');
      if (parsed.query.csv) {
        await sendCsv(res, reportCsv(deps, parsed.query, visibleTo, deps.campaignTraits));
        return;
      }
      res.json(await readReport(deps, parsed.query, visibleTo, deps.campaignTraits, reportSnapshots));
    }),
  );
}
