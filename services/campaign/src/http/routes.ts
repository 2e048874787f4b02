/** HTTP of the campaign service (API.md "Workspace: campaigns"): parse, call a use case, answer. */
import { AUDIT_POSITION, CAMPAIGN_TRAITS_PATH } from '@pilot/contracts';
import { auditNarrowingOf, decodeCursor, listIdsOf, listOwnerOf, listReadOf, MAX_PAGE_LIMIT, pageLimitOf, positiveIntOf, queryString, searchPatternOf, principalOf, requirePrincipal, problems, jsonBody } from '@pilot/platform';
import type { Express, Request, Response } from 'express';
import { isCampaignStatus } from '../domain/campaign';
import { createCampaign } from '../use-cases/create-campaign';
import type { CampaignDeps } from '../use-cases/deps';
import { duplicateCampaign } from '../use-cases/duplicate-campaign';
import { getCampaign } from '../use-cases/get-campaign';
import { listCampaigns } from '../use-cases/list-campaigns';
import { readActiveSnapshot } from '../use-cases/read-active-snapshot';
import { readAudit } from '../use-cases/read-audit';
import { readCampaignTraits, traitIdsOf } from '../use-cases/read-campaign-traits';
import { activateCampaign, approveCampaign, pauseCampaign, rejectCampaign, submitCampaign, type TransitionAnswer } from '../use-cases/transition-campaign';

function statusFilter(req: Request) {
  if (req.query.status === undefined || req.query.status === '') return null;
  const status = queryString(req.query.status);
  if (!isCampaignStatus(status)) throw problems.badRequest('invalid_status', 'status must be one of draft, submitted, approved, active, paused, rejected');
  return status;
}

export function mountRoutes(app: Express, deps: CampaignDeps): void {
  const body = jsonBody('64kb');

  app.post('/api/workspace/campaigns', body, async (req, res) => {
    res.status(201).json(await createCampaign(deps, requirePrincipal(req), req.body));
  });

  app.get('/api/workspace/campaigns', async (req, res) => {
    const caller = requirePrincipal(req);
    const filter = { ownerAccountId: listOwnerOf(req.query.ownerAccountId, caller), status: statusFilter(req), search: searchPatternOf(req.query.q), ids: listIdsOf(req.query.ids) };
    res.json(await listCampaigns(deps, filter, listReadOf(req.query)));
  });

  app.get('/api/workspace/campaigns/:id', async (req, res) => {
    res.json(await getCampaign(deps, requirePrincipal(req), positiveIntOf(req.params.id)));
  });

  // A move answers 202 while its event is not yet on the bus (the change is stored, not yet in effect).
  const answerMove = (res: Response, answer: TransitionAnswer) => res.status(answer.propagation === 'pending' ? 202 : 200).json(answer);

  app.post('/api/workspace/campaigns/:id/submit', body, async (req, res) => {
    answerMove(res, await submitCampaign(deps, requirePrincipal(req), positiveIntOf(req.params.id)));
  });

  app.post('/api/workspace/campaigns/:id/approve', body, async (req, res) => {
    answerMove(res, await approveCampaign(deps, requirePrincipal(req), positiveIntOf(req.params.id)));
  });

  app.post('/api/workspace/campaigns/:id/reject', body, async (req, res) => {
    answerMove(res, await rejectCampaign(deps, requirePrincipal(req), positiveIntOf(req.params.id), req.body));
  });

  app.post('/api/workspace/campaigns/:id/activate', body, async (req, res) => {
    answerMove(res, await activateCampaign(deps, requirePrincipal(req), positiveIntOf(req.params.id)));
  });

  app.post('/api/workspace/campaigns/:id/pause', body, async (req, res) => {
    answerMove(res, await pauseCampaign(deps, requirePrincipal(req), positiveIntOf(req.params.id), req.body));
  });

  app.post('/api/workspace/campaigns/:id/duplicate', body, async (req, res) => {
    res.status(201).json(await duplicateCampaign(deps, requirePrincipal(req), positiveIntOf(req.params.id)));
  });

  // Service-to-service: the snapshot the campaign caches of allocation and tracking rebuild from.
  app.get('/internal/campaigns/active', async (_req, res) => {
    res.json(await readActiveSnapshot(deps));
  });

  // Service-to-service: the language and format of the campaigns a report names (tracking's lookup).
  app.get(CAMPAIGN_TRAITS_PATH, async (req, res) => {
    res.json(await readCampaignTraits(deps, traitIdsOf(req.query.ids)));
  });

  // Composed by the gateway into GET /api/workspace/audit with the caller's signed identity.
  app.get('/internal/audit', async (req, res) => {
    const principal = principalOf(req);
    if (!principal) throw problems.unauthorized('not_signed_in', 'The audit is read on behalf of a signed-in account');
    const after = decodeCursor(req.query.cursor, AUDIT_POSITION);
    // The gateway asks for one entry more than its page to know whether there is a next one.
    const limit = pageLimitOf(req.query.limit, MAX_PAGE_LIMIT + 1);
    res.json(await readAudit(deps, principal, { entity: queryString(req.query.entity), entityId: queryString(req.query.entityId), ...auditNarrowingOf(req.query) }, after, limit));
  });
}
