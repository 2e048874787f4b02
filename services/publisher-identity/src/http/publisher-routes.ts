/**
 * API.md "Workspace: publisher platforms" and this service's part of the audit, thin: parse, call the
 * use case, map the result.
 *
 * Decisions API.md leaves to this service:
 * - Administrator actions (approve, reject, pause) are 403 `admin_only` for other accounts before the
 *   record is looked up; owner actions on a visible record of someone else are 403 `owner_only`.
 * - Generating a key for a platform that is not approved is 409 `publisher_not_approved`. Ending the previous
 *   key when there is none is 204 as well (the answer is the same state).
 * - A test key is made or revoked by the owner only (403 `owner_only`, administrators included), whatever
 *   the platform's status; revoking when there is none is 204 as well (the answer is the same state).
 * - `?status=` filters the list (the administrator review queue is `?status=submitted`); another value is
 *   400 `invalid_status`. Paging, `q` and `ownerAccountId` as for campaigns (`@pilot/platform` paging).
 * - GET /internal/audit knows the entities `publisher` and `account`; any other entity has no entries here.
 */
import { AUDIT_POSITION } from '@pilot/contracts';
import { auditNarrowingOf, decodeCursor, listIdsOf, listOwnerOf, listReadOf, MAX_PAGE_LIMIT, pageLimitOf, positiveIntOf, queryString, searchPatternOf, requireAdmin, requirePrincipal, problems, jsonBody } from '@pilot/platform';
import type { Express, Request, RequestHandler } from 'express';
import { validateOptionalReason } from '../domain/pause';
import { isPublisherStatus, validateKeyGeneration, validateNewPublisher, validateReason } from '../domain/publisher';
import { createTestKey } from '../use-cases/create-test-key';
import type { IdentityDeps } from '../use-cases/deps';
import { listPublishers } from '../use-cases/list-publishers';
import { readAudit } from '../use-cases/read-audit';
import { readPublisher } from '../use-cases/read-publisher';
import { registerPublisher } from '../use-cases/register-publisher';
import { revokePreviousKey } from '../use-cases/revoke-previous-key';
import { revokeTestKey } from '../use-cases/revoke-test-key';
import { rotateKey } from '../use-cases/rotate-key';
import { approvePublisher, pausePublisher, rejectPublisher, submitPublisher } from '../use-cases/transition-publisher';

function idOf(req: Request): number {
  const id = positiveIntOf(req.params.id);
  if (id === null) throw problems.notFound('publisher_not_found', 'No such publisher platform');
  return id;
}

export function mountPublisherRoutes(app: Express, deps: IdentityDeps): void {
  const BASE = '/api/workspace/publishers';
  const signedIn: RequestHandler = (req, _res, next) => {
    requirePrincipal(req);
    next();
  };
  const adminOnly: RequestHandler = (req, _res, next) => {
    requireAdmin(req);
    next();
  };

  app.post(BASE, signedIn, jsonBody('4kb'), async (req, res) => {
    const caller = requirePrincipal(req);
    const result = validateNewPublisher(req.body);
    if (!result.ok) throw problems.validation(result.errors);
    res.status(201).json(await registerPublisher(deps, caller, result.value));
  });

  app.get(BASE, async (req, res) => {
    const caller = requirePrincipal(req);
    const status = req.query.status;
    if (status !== undefined && status !== '' && !isPublisherStatus(status)) {
      throw problems.badRequest('invalid_status', 'status must be one of draft, submitted, approved, paused, rejected');
    }
    const filter = { ownerAccountId: listOwnerOf(req.query.ownerAccountId, caller), status: isPublisherStatus(status) ? status : null, search: searchPatternOf(req.query.q), ids: listIdsOf(req.query.ids) };
    res.json(await listPublishers(deps, filter, listReadOf(req.query)));
  });

  app.get(`${BASE}/:id`, async (req, res) => {
    const caller = requirePrincipal(req);
    res.json(await readPublisher(deps, caller, idOf(req)));
  });

  app.post(`${BASE}/:id/submit`, signedIn, async (req, res) => {
    res.json(await submitPublisher(deps, requirePrincipal(req), idOf(req)));
  });

  app.post(`${BASE}/:id/approve`, adminOnly, async (req, res) => {
    res.json(await approvePublisher(deps, requirePrincipal(req), idOf(req)));
  });

  // API.md: an optional {reason}, recorded in the audit entry of the pause.
  app.post(`${BASE}/:id/pause`, adminOnly, jsonBody('4kb'), async (req, res) => {
    const caller = requireAdmin(req);
    const id = idOf(req);
    const reason = validateOptionalReason(req.body);
    if (!reason.ok) throw problems.validation(reason.errors);
    res.json(await pausePublisher(deps, caller, id, reason.value));
  });

  app.post(`${BASE}/:id/reject`, adminOnly, jsonBody('4kb'), async (req, res) => {
    const caller = requireAdmin(req);
    const id = idOf(req);
    const reason = validateReason(req.body);
    if (!reason.ok) throw problems.validation(reason.errors);
    res.json(await rejectPublisher(deps, caller, id, reason.value));
  });

  // API.md: an optional {previousKeyGraceSeconds} keeps the replaced key working that long (a rolling deploy).
  app.post(`${BASE}/:id/keys`, signedIn, jsonBody('4kb'), async (req, res) => {
    const caller = requirePrincipal(req);
    const id = idOf(req);
    const input = validateKeyGeneration(req.body);
    if (!input.ok) throw problems.validation(input.errors);
    const created = await rotateKey(deps, caller, id, input.value.previousKeyGraceSeconds);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(created);
  });

  app.delete(`${BASE}/:id/keys/previous`, signedIn, async (req, res) => {
    await revokePreviousKey(deps, requirePrincipal(req), idOf(req));
    res.status(204).end();
  });

  // The sandbox: one test key per platform, for its owner, whatever the platform's status.
  app.post(`${BASE}/:id/test-key`, signedIn, async (req, res) => {
    const caller = requirePrincipal(req);
    const created = await createTestKey(deps, caller, idOf(req));
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(created);
  });

  app.delete(`${BASE}/:id/test-key`, signedIn, async (req, res) => {
    const caller = requirePrincipal(req);
    await revokeTestKey(deps, caller, idOf(req));
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
