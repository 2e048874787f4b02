/**
 * The HTTP contract of API.md "Website placements", thin: parse, call the use case, map the result.
 *
 * Decisions API.md leaves to this service:
 * - PUT answers 200 with the slot item `{slot, placement, impressions}` of the new placement; a PUT of
 *   exactly the current content keeps the current placement and its impressions (no audit entry, no event).
 * - An impression for a placement that is not showable now (draft, paused, outside its schedule,
 *   replaced by a newer placement, or unknown) is 409 `placement_not_showable` and is not counted.
 * - Impression reports are limited per client address (429 `rate_limited` with Retry-After); the limit
 *   applies before anything else is looked at.
 * - GET /internal/audit: administrators see every placement entry, other accounts none (200, empty).
 */
import { AUDIT_POSITION } from '@pilot/contracts';
import { auditNarrowingOf, decodeCursor, MAX_PAGE_LIMIT, pageLimitOf, queryString, clientIpOf, requireAdmin, requirePrincipal, problems, type FieldError, jsonBody } from '@pilot/platform';
import type { Express, Request, RequestHandler } from 'express';
import { isSlot, type Slot } from '../domain/slots';
import { validateImpressionInput, validatePlacementInput } from '../domain/validation';
import { admitImpressionReport } from '../use-cases/admit-impression-report';
import type { PlacementDeps } from '../use-cases/deps';
import { listSlots } from '../use-cases/list-slots';
import { readAudit } from '../use-cases/read-audit';
import { readPublicPlacement } from '../use-cases/read-public-placement';
import { recordImpression } from '../use-cases/record-impression';
import { setPlacement } from '../use-cases/set-placement';

function slotOf(req: Request): Slot {
  const slot = req.params.slot;
  if (!isSlot(slot)) throw problems.notFound('slot_not_found', 'No such placement slot');
  return slot;
}

export function mountRoutes(app: Express, deps: PlacementDeps): void {
  app.get('/api/workspace/placements', async (req, res) => {
    requireAdmin(req);
    res.json({ items: await listSlots(deps) });
  });

  // Who may write is decided before the body is even parsed.
  const adminOnly: RequestHandler = (req, _res, next) => {
    requireAdmin(req);
    next();
  };

  app.put('/api/workspace/placements/:slot', adminOnly, jsonBody(), async (req, res) => {
    const admin = requireAdmin(req);
    const slot = slotOf(req);
    const result = validatePlacementInput(req.body);
    if (!result.ok) throw problems.validation(result.errors satisfies FieldError[]);
    res.json(await setPlacement(deps, slot, result.value, admin));
  });

  app.get('/api/site/placements/:slot', async (req, res) => {
    const slot = slotOf(req);
    const placement = await readPublicPlacement(deps, slot);
    res.setHeader('Cache-Control', 'no-store');
    if (!placement) {
      res.status(204).end();
      return;
    }
    res.json(placement);
  });

  // The abuse limit comes first, before the body is read or the database is asked.
  const limitImpressions: RequestHandler = async (req, _res, next) => {
    slotOf(req);
    await admitImpressionReport(deps, clientIpOf(req));
    next();
  };

  app.post('/api/site/placements/:slot/impressions', limitImpressions, jsonBody('1kb'), async (req, res) => {
    const slot = slotOf(req);
    const result = validateImpressionInput(req.body);
    if (!result.ok) throw problems.validation(result.errors);
    const outcome = await recordImpression(deps, slot, result.placementId);
    if (outcome === 'not_showable') throw problems.conflict('placement_not_showable', 'This placement is not being shown now; the impression was not counted');
    res.status(204).end();
  });

  app.get('/internal/audit', async (req, res) => {
    const caller = requirePrincipal(req);
    const entity = queryString(req.query.entity);
    const entityId = queryString(req.query.entityId);
    const after = decodeCursor(req.query.cursor, AUDIT_POSITION);
    // The gateway asks for one entry more than its page to know whether there is a next one.
    const limit = pageLimitOf(req.query.limit, MAX_PAGE_LIMIT + 1);
    res.json({ items: await readAudit(deps, caller, { entity: entity || undefined, entityId: entityId || undefined, ...auditNarrowingOf(req.query) }, after, limit) });
  });
}
