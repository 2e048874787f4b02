/** HTTP of the campaign service (API.md "Workspace: campaigns"): parse, call a use case, answer. */
import { positiveIntOf, queryString } from '@pilot/http-kit';
import { principalOf, requirePrincipal } from '@pilot/internal-auth';
import { problems } from '@pilot/problems';
import { jsonBody } from '@pilot/service-app';
import type { Express, Request } from 'express';
import { isCampaignStatus, TRANSITION_NAMES, type Actor } from '../domain/campaign';
import type { CampaignUseCases } from '../use-cases/campaigns';

function actorOf(req: Request): Actor {
  const principal = requirePrincipal(req);
  return { accountId: principal.accountId, admin: principal.admin };
}

function statusFilter(req: Request) {
  if (req.query.status === undefined || req.query.status === '') return null;
  const status = queryString(req.query.status);
  if (!isCampaignStatus(status)) throw problems.badRequest('invalid_status', 'status must be one of draft, submitted, approved, active, paused, rejected');
  return status;
}

export function mountRoutes(app: Express, campaigns: CampaignUseCases): void {
  const body = jsonBody('64kb');

  app.post('/api/workspace/campaigns', body, async (req, res) => {
    res.status(201).json(await campaigns.createCampaign(actorOf(req), req.body));
  });

  app.get('/api/workspace/campaigns', async (req, res) => {
    const actor = actorOf(req);
    res.json(await campaigns.listCampaigns(actor, statusFilter(req)));
  });

  app.get('/api/workspace/campaigns/:id', async (req, res) => {
    res.json(await campaigns.getCampaign(actorOf(req), positiveIntOf(req.params.id)));
  });

  for (const name of TRANSITION_NAMES) {
    app.post(`/api/workspace/campaigns/:id/${name}`, body, async (req, res) => {
      const answer = await campaigns.transition(name, actorOf(req), positiveIntOf(req.params.id), req.body);
      res.status(answer.propagation === 'pending' ? 202 : 200).json(answer);
    });
  }

  // Service-to-service: the snapshot the campaign caches of allocation and tracking rebuild from.
  app.get('/internal/campaigns/active', async (_req, res) => {
    res.json(await campaigns.activeSnapshot());
  });

  // Composed by the gateway into GET /api/workspace/audit with the caller's signed identity.
  app.get('/internal/audit', async (req, res) => {
    const principal = principalOf(req);
    if (!principal) throw problems.unauthorized('not_signed_in', 'The audit is read on behalf of a signed-in account');
    const actor = { accountId: principal.accountId, admin: principal.admin };
    res.json(await campaigns.audit(actor, queryString(req.query.entity), queryString(req.query.entityId)));
  });
}
