/**
 * A small in-memory stand-in for the gateway and the API services, for browser tests of the frontend
 * only: it answers the /api/... contract of API.md (problem+json errors, origin check on writes, session
 * cookie), sends the gateway's page policy (CSP), and forwards every other path to the real web service
 * with the gateway's signed headers. Tests drive it (confirm a sign-in, set state) and read what it saw.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { transitionRefusalMessage, type AdminPlacement, type Campaign, type Publisher, type Session } from '@pilot/contracts';
import { signedHeaders } from '@pilot/platform';
import express, { type NextFunction, type Request, type Response } from 'express';

/** The signed-in account (the contract's Session). */
export type Account = Session;

interface LoginRequest {
  requestId: string;
  code: string;
  binding: string;
  status: 'pending' | 'confirmed' | 'expired';
  account?: Account;
  consumed: boolean;
}

/** The fake answers the services' contracts (@pilot/contracts), so the frontend is tested against them. */
export type FakeCampaign = Campaign;

export type FakePublisher = Pick<Publisher, 'id' | 'type' | 'link' | 'status' | 'ownerAccountId' | 'keyCreatedAt' | 'createdAt' | 'updatedAt'>;

export type FakePlacement = Pick<AdminPlacement, 'placementId' | 'title' | 'buttonText' | 'destinationUrl' | 'imageUrl' | 'status'> &
  Partial<Pick<AdminPlacement, 'startsAt' | 'endsAt'>>;

export const PAGE_POLICY =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' https: data:;connect-src 'self';font-src 'self';object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'";

const SESSION_COOKIE = 'pilot_session';
const LOGIN_COOKIE = 'pilot_login';

function problem(res: Response, status: number, code: string, detail: string, errors?: Array<{ field: string; code: string; message: string }>): void {
  res
    .status(status)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: code, status, detail, code, ...(errors ? { errors } : {}) }));
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

function lengthOf(value: unknown): number {
  return typeof value === 'string' ? Array.from(value).length : -1;
}

function httpsOk(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && !url.username && !url.password;
  } catch {
    return false;
  }
}

interface BreakdownRow {
  id: number;
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

/** A list's answer as the services give it: narrowed by `ids=`, oldest first with `sort=oldest`, counted with `count=true`; one page. */
function listAnswer<T extends { id: number }>(req: Request, matching: T[]): { items: T[]; nextCursor: null; total?: number; totalCapped?: boolean } {
  const ids = typeof req.query.ids === 'string' ? new Set(req.query.ids.split(',').map(Number)) : null;
  const items = ids ? matching.filter((item) => ids.has(item.id)) : matching;
  const ordered = req.query.sort === 'oldest' ? [...items].reverse() : items;
  return req.query.count === 'true' ? { items: ordered, nextCursor: null, total: items.length, totalCapped: false } : { items: ordered, nextCursor: null };
}

export class FakeApi {
  readonly campaigns: FakeCampaign[] = [];
  readonly publishers: FakePublisher[] = [];
  readonly placements = new Map<string, FakePlacement | null>([
    ['home-feature', null],
    ['workspace-top', null],
    ['tr-footer', null],
  ]);
  readonly impressions: Array<{ slot: string; placementId: unknown }> = [];
  readonly issuedKeys: string[] = [];
  readonly refusedOrigins: string[] = [];
  stats = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, days: [] as Array<Record<string, unknown>> };
  /** As the campaign service answers while its message broker is unreachable: 202, propagation pending. */
  brokerUnreachable = false;
  /** The breakdown report's rows: those of the period ending today, and those of any earlier period. */
  breakdown: { current: BreakdownRow[]; previous: BreakdownRow[] } = { current: [], previous: [] };
  /** The breakdown calls received, as their query strings. */
  readonly breakdownCalls: URLSearchParams[] = [];
  /** Activations are refused (409), as when the campaign moved meanwhile; other moves go through. */
  activationRefused = false;
  /** host names the fake server refuses as a destination (a rule only the server knows) */
  readonly blockedHosts = new Set(['blocked.example']);
  private readonly logins = new Map<string, LoginRequest>();
  private readonly sessions = new Map<string, Account>();
  /** Notification settings by account, as the notification service keeps them. */
  private readonly notificationSettings = new Map<string, { reviews: boolean; queue: boolean }>();
  private nextId = 1;
  private server?: Server;
  url = '';

  constructor(
    private readonly webUrl: string,
    private readonly secret: string,
  ) {}

  async start(): Promise<this> {
    const app = express();
    app.disable('x-powered-by');
    app.use((_req, res, next) => {
      res.setHeader('Content-Security-Policy', PAGE_POLICY);
      next();
    });
    app.use('/api', express.json(), (req, res, next) => this.originCheck(req, res, next));
    this.routes(app);
    app.use('/api', (_req, res) => problem(res, 404, 'not_found', 'No such API path.'));
    app.use((req, res) => void this.forwardToWeb(req, res));
    await new Promise<void>((resolve) => {
      this.server = app.listen(0, '127.0.0.1', () => resolve());
    });
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A session cookie value for `account`, as if it had signed in. */
  sessionFor(account: Account): string {
    const id = randomBytes(24).toString('base64url');
    this.sessions.set(id, account);
    return id;
  }

  confirmLogin(code: string, account: Account): void {
    const login = [...this.logins.values()].find((item) => item.code === code);
    if (!login) throw new Error(`no login request with code ${code}`);
    login.status = 'confirmed';
    login.account = account;
  }

  expireLogin(code: string): void {
    const login = [...this.logins.values()].find((item) => item.code === code);
    if (!login) throw new Error(`no login request with code ${code}`);
    login.status = 'expired';
  }

  addCampaign(fields: Partial<FakeCampaign> & { ownerAccountId: string }): FakeCampaign {
    const now = new Date().toISOString();
    const campaign: FakeCampaign = {
      id: this.nextId++,
      name: 'Spring sale',
      format: 'bot',
      title: 'Fresh bread every morning',
      text: 'Order before 9 and get it warm.',
      destinationUrl: 'https://bakery.example/order',
      buttonText: 'Order now',
      imageUrl: null,
      language: 'en',
      status: 'draft',
      replaces: null,
      rejectionReason: null,
      pauseReason: null,
      createdAt: now,
      updatedAt: now,
      ...fields,
    };
    this.campaigns.unshift(campaign);
    return campaign;
  }

  addPublisher(fields: Partial<FakePublisher> & { ownerAccountId: string }): FakePublisher {
    const now = new Date().toISOString();
    const publisher: FakePublisher = {
      id: this.nextId++,
      type: 'bot',
      link: 'https://t.me/weather_bot',
      status: 'draft',
      keyCreatedAt: null,
      createdAt: now,
      updatedAt: now,
      ...fields,
    };
    this.publishers.unshift(publisher);
    return publisher;
  }

  private originCheck(req: Request, res: Response, next: NextFunction): void {
    const write = !['GET', 'HEAD', 'OPTIONS'].includes(req.method);
    const guarded = req.path.startsWith('/auth/') || req.path.startsWith('/workspace/');
    if (write && guarded && req.headers.origin !== this.url) {
      this.refusedOrigins.push(String(req.headers.origin));
      problem(res, 403, 'origin_refused', 'Writes must come from the site itself.');
      return;
    }
    next();
  }

  private account(req: Request): Account | null {
    const id = cookieOf(req, SESSION_COOKIE);
    return id ? (this.sessions.get(id) ?? null) : null;
  }

  private signedIn(req: Request, res: Response): Account | null {
    const account = this.account(req);
    if (!account) problem(res, 401, 'unauthenticated', 'Sign in first.');
    return account;
  }

  private visible<T extends { ownerAccountId: string }>(account: Account, item: T | undefined): item is T {
    return Boolean(item && (account.admin || item.ownerAccountId === account.accountId));
  }

  private routes(app: express.Express): void {
    // sign-in
    app.post('/api/auth/login', (_req, res) => {
      const requestId = randomBytes(12).toString('hex');
      // Like publisher-identity: an unguessable base64url value (43 characters), not a short number.
      const code = randomBytes(32).toString('base64url');
      const binding = randomBytes(16).toString('base64url');
      this.logins.set(requestId, { requestId, code, binding, status: 'pending', consumed: false });
      res.setHeader('Set-Cookie', `${LOGIN_COOKIE}=${binding}; Path=/api/auth; HttpOnly; SameSite=Lax`);
      res.status(201).json({ requestId, code, botUrl: `https://t.me/pilot_signin_bot?start=${code}`, expiresAt: new Date(Date.now() + 300_000).toISOString() });
    });
    app.get('/api/auth/login/:id', (req, res) => {
      const login = this.logins.get(String(req.params.id));
      if (!login || cookieOf(req, LOGIN_COOKIE) !== login.binding) return problem(res, 404, 'login_not_found', 'No such sign-in request.');
      if (login.status === 'confirmed' && login.account && !login.consumed) {
        login.consumed = true;
        res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${this.sessionFor(login.account)}; Path=/; HttpOnly; SameSite=Lax`);
        return res.json({ status: 'confirmed', account: login.account });
      }
      res.json({ status: login.status });
    });
    app.get('/api/auth/session', (req, res) => {
      const account = this.signedIn(req, res);
      if (account) res.json(account);
    });
    app.post('/api/auth/logout', (req, res) => {
      const id = cookieOf(req, SESSION_COOKIE);
      if (id) this.sessions.delete(id);
      res.setHeader('Set-Cookie', `${SESSION_COOKIE}=; Path=/; Max-Age=0`);
      res.status(204).end();
    });

    // campaigns
    app.get('/api/workspace/campaigns', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const status = typeof req.query.status === 'string' ? req.query.status : '';
      const owner = typeof req.query.ownerAccountId === 'string' ? req.query.ownerAccountId : '';
      res.json(listAnswer(req, this.campaigns.filter((c) => this.visible(account, c) && (!status || c.status === status) && (!owner || c.ownerAccountId === owner))));
    });
    app.post('/api/workspace/campaigns', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const errors: Array<{ field: string; code: string; message: string }> = [];
      const text = (field: string, max: number) => {
        const length = lengthOf(body[field]);
        if (length < 1) errors.push({ field, code: 'required', message: 'is required' });
        else if (length > max) errors.push({ field, code: 'too_long', message: `must NOT have more than ${max} characters` });
      };
      text('name', 100);
      text('title', 100);
      text('text', 700);
      text('buttonText', 32);
      if (!httpsOk(body.destinationUrl)) errors.push({ field: 'destinationUrl', code: 'invalid_url', message: 'must be an https address' });
      else if (this.blockedHosts.has(new URL(String(body.destinationUrl)).hostname))
        errors.push({ field: 'destinationUrl', code: 'destination_refused', message: 'This destination is not accepted.' });
      if (body.imageUrl !== undefined && !httpsOk(body.imageUrl)) errors.push({ field: 'imageUrl', code: 'invalid_url', message: 'must be an https address' });
      if (body.format !== 'bot' && body.format !== 'channel') errors.push({ field: 'format', code: 'not_allowed', message: 'must be bot or channel' });
      if (errors.length > 0) return problem(res, 422, 'validation_failed', 'One or more fields are invalid', errors);
      const campaign = this.addCampaign({
        ownerAccountId: account.accountId,
        name: String(body.name),
        format: body.format as 'bot' | 'channel',
        title: String(body.title),
        text: String(body.text),
        destinationUrl: String(body.destinationUrl),
        buttonText: String(body.buttonText),
        imageUrl: typeof body.imageUrl === 'string' ? body.imageUrl : null,
        language: String(body.language),
        replaces: typeof body.replaces === 'number' ? body.replaces : null,
      });
      res.status(201).json(campaign);
    });
    app.get('/api/workspace/campaigns/:id', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      if (req.params.id === '403') return problem(res, 403, 'forbidden', 'This record belongs to another account.');
      const campaign = this.campaigns.find((c) => String(c.id) === req.params.id);
      if (!this.visible(account, campaign)) return problem(res, 404, 'campaign_not_found', 'No such campaign.');
      res.json(campaign);
    });
    const campaignMoves: Record<string, { from: string[]; to: Campaign['status']; admin: boolean; owner: boolean }> = {
      submit: { from: ['draft', 'rejected'], to: 'submitted', admin: false, owner: true },
      approve: { from: ['submitted'], to: 'approved', admin: true, owner: false },
      reject: { from: ['submitted'], to: 'rejected', admin: true, owner: false },
      activate: { from: ['approved', 'paused'], to: 'active', admin: true, owner: false },
      pause: { from: ['active'], to: 'paused', admin: true, owner: true },
    };
    app.post('/api/workspace/campaigns/:id/:action', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const move = campaignMoves[String(req.params.action)];
      const campaign = this.campaigns.find((c) => String(c.id) === req.params.id);
      if (!move || !this.visible(account, campaign)) return problem(res, 404, 'campaign_not_found', 'No such campaign.');
      if (req.params.action === 'activate' && this.activationRefused) return problem(res, 409, 'invalid_transition', 'The campaign changed meanwhile; it cannot be activated now.');
      const owner = campaign.ownerAccountId === account.accountId;
      if (!((move.admin && account.admin) || (move.owner && owner))) return problem(res, 403, 'forbidden', 'Not allowed for this account.');
      if (!move.from.includes(campaign.status)) return problem(res, 409, 'invalid_transition', transitionRefusalMessage('campaign', campaign.status, String(req.params.action), move.to));
      if (req.params.action === 'reject') {
        const reason = (req.body as { reason?: unknown } | undefined)?.reason;
        if (lengthOf(reason) < 1 || lengthOf(reason) > 500)
          return problem(res, 422, 'validation_failed', 'One or more fields are invalid', [{ field: 'reason', code: 'required', message: 'is required' }]);
        campaign.rejectionReason = String(reason);
      }
      const pauseReason = (req.body as { reason?: unknown } | undefined)?.reason;
      campaign.pauseReason = move.to === 'paused' && typeof pauseReason === 'string' ? pauseReason : null;
      campaign.status = move.to;
      campaign.updatedAt = new Date().toISOString();
      res.status(this.brokerUnreachable ? 202 : 200).json({ ...campaign, propagation: this.brokerUnreachable ? 'pending' : 'done' });
    });

    // publishers
    app.get('/api/workspace/publishers', (req, res) => {
      const account = this.signedIn(req, res);
      if (account) res.json(listAnswer(req, this.publishers.filter((p) => this.visible(account, p))));
    });
    app.post('/api/workspace/publishers', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const match = typeof body.link === 'string' ? /^(?:@|https:\/\/t\.me\/)([A-Za-z][A-Za-z0-9_]{3,31})$/.exec(body.link) : null;
      if (!match) return problem(res, 422, 'validation_failed', 'One or more fields are invalid', [{ field: 'link', code: 'invalid_link', message: 'must be https://t.me/<username>' }]);
      res.status(201).json(this.addPublisher({ ownerAccountId: account.accountId, type: body.type === 'channel' ? 'channel' : 'bot', link: `https://t.me/${match[1]}` }));
    });
    app.get('/api/workspace/publishers/:id', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const publisher = this.publishers.find((p) => String(p.id) === req.params.id);
      if (!this.visible(account, publisher)) return problem(res, 404, 'publisher_not_found', 'No such platform.');
      res.json(publisher);
    });
    app.post('/api/workspace/publishers/:id/keys', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const publisher = this.publishers.find((p) => String(p.id) === req.params.id);
      if (!this.visible(account, publisher)) return problem(res, 404, 'publisher_not_found', 'No such platform.');
      if (publisher.ownerAccountId !== account.accountId) return problem(res, 403, 'forbidden', 'Only the owner generates keys.');
      if (publisher.status !== 'approved') return problem(res, 409, 'publisher_not_approved', 'The platform is not approved.');
      const key = `ppk_${randomBytes(24).toString('base64url')}`;
      this.issuedKeys.push(key);
      publisher.keyCreatedAt = new Date().toISOString();
      res.status(201).json({ key, keyCreatedAt: publisher.keyCreatedAt });
    });
    const publisherMoves: Record<string, { from: string[]; to: Publisher['status']; admin: boolean }> = {
      submit: { from: ['draft', 'rejected'], to: 'submitted', admin: false },
      approve: { from: ['submitted', 'paused'], to: 'approved', admin: true },
      reject: { from: ['submitted', 'approved', 'paused'], to: 'rejected', admin: true },
      pause: { from: ['approved'], to: 'paused', admin: true },
    };
    app.post('/api/workspace/publishers/:id/:action', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const move = publisherMoves[String(req.params.action)];
      const publisher = this.publishers.find((p) => String(p.id) === req.params.id);
      if (!move || !this.visible(account, publisher)) return problem(res, 404, 'publisher_not_found', 'No such platform.');
      if (move.admin ? !account.admin : publisher.ownerAccountId !== account.accountId) return problem(res, 403, 'forbidden', 'Not allowed for this account.');
      if (!move.from.includes(publisher.status)) return problem(res, 409, 'invalid_transition', transitionRefusalMessage('platform', publisher.status, String(req.params.action), move.to));
      publisher.status = move.to;
      publisher.updatedAt = new Date().toISOString();
      res.json(publisher);
    });

    // totals and audit
    app.get('/api/workspace/stats', (req, res) => {
      if (this.signedIn(req, res)) res.json(this.stats);
    });
    app.get('/api/workspace/stats/breakdown', (req, res) => {
      if (!this.signedIn(req, res)) return;
      const query = new URLSearchParams(req.url.split('?')[1] ?? '');
      this.breakdownCalls.push(query);
      const sort = (query.get('sort') ?? 'adRequests') as keyof Omit<BreakdownRow, 'id'>;
      const ids = query.get('ids')?.split(',').map(Number);
      const period = query.get('to') === new Date().toISOString().slice(0, 10) ? this.breakdown.current : this.breakdown.previous;
      const rows = ids ? period.filter((row) => ids.includes(row.id)) : period;
      res.json({ items: [...rows].sort((a, b) => (b[sort] ?? 0) - (a[sort] ?? 0) || a.id - b.id), nextCursor: null });
    });
    app.get('/api/workspace/audit', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      res.json({
        items: this.campaigns
          .filter((c) => this.visible(account, c) && c.status !== 'draft')
          .map((c) => ({ at: c.updatedAt, actorAccountId: c.ownerAccountId, entity: 'campaign', entityId: c.id, action: 'submit', from: 'draft', to: 'submitted' })),
        nextCursor: null,
      });
    });

    // placements
    app.get('/api/workspace/notifications', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      res.json(this.notificationSettings.get(account.accountId) ?? { reviews: true, queue: account.admin });
    });
    app.put('/api/workspace/notifications', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const before = this.notificationSettings.get(account.accountId) ?? { reviews: true, queue: account.admin };
      const after = {
        reviews: typeof body.reviews === 'boolean' ? body.reviews : before.reviews,
        queue: account.admin && (typeof body.queue === 'boolean' ? body.queue : before.queue),
      };
      this.notificationSettings.set(account.accountId, after);
      res.json(after);
    });
    app.get('/api/workspace/placements', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      if (!account.admin) return problem(res, 403, 'admin_only', 'Only administrators manage placements.');
      res.json({
        items: [...this.placements.entries()].map(([slot, placement]) => ({
          slot,
          placement,
          impressions: this.impressions.filter((item) => item.slot === slot && placement && item.placementId === placement.placementId).length,
        })),
      });
    });
    app.put('/api/workspace/placements/:slot', (req, res) => {
      const account = this.signedIn(req, res);
      if (!account) return;
      if (!account.admin) return problem(res, 403, 'admin_only', 'Only administrators manage placements.');
      if (!this.placements.has(String(req.params.slot))) return problem(res, 404, 'unknown_slot', 'No such slot.');
      const body = (req.body ?? {}) as Record<string, unknown>;
      const errors: Array<{ field: string; code: string; message: string }> = [];
      if (lengthOf(body.title) < 1) errors.push({ field: 'title', code: 'required', message: 'is required' });
      if (lengthOf(body.buttonText) < 1) errors.push({ field: 'buttonText', code: 'required', message: 'is required' });
      if (!httpsOk(body.destinationUrl)) errors.push({ field: 'destinationUrl', code: 'invalid_url', message: 'must be an https address' });
      if (errors.length > 0) return problem(res, 422, 'validation_failed', 'One or more fields are invalid', errors);
      const placement: FakePlacement = {
        placementId: `pl-${this.nextId++}`,
        title: String(body.title),
        buttonText: String(body.buttonText),
        destinationUrl: String(body.destinationUrl),
        imageUrl: typeof body.imageUrl === 'string' ? body.imageUrl : null,
        status: (body.status as FakePlacement['status']) ?? 'draft',
        startsAt: (body.startsAt as string | undefined) ?? null,
        endsAt: (body.endsAt as string | undefined) ?? null,
      };
      this.placements.set(String(req.params.slot), placement);
      res.json(placement);
    });
    app.get('/api/site/placements/:slot', (req, res) => {
      const slot = String(req.params.slot);
      if (!this.placements.has(slot)) return problem(res, 404, 'unknown_slot', 'No such slot.');
      const placement = this.placements.get(slot);
      if (!placement || placement.status !== 'active') return res.status(204).end();
      const { placementId, title, buttonText, destinationUrl, imageUrl } = placement;
      res.json({ slot, placementId, title, buttonText, destinationUrl, imageUrl });
    });
    app.post('/api/site/placements/:slot/impressions', (req, res) => {
      const slot = String(req.params.slot);
      if (!this.placements.has(slot)) return problem(res, 404, 'unknown_slot', 'No such slot.');
      this.impressions.push({ slot, placementId: (req.body as { placementId?: unknown } | undefined)?.placementId });
      res.status(204).end();
    });
  }

  /** Everything else goes to the real web service, signed like the gateway does. */
  private async forwardToWeb(req: Request, res: Response): Promise<void> {
    try {
      const upstream = await fetch(`${this.webUrl}${req.originalUrl}`, {
        method: req.method,
        headers: { ...signedHeaders(this.secret, { method: req.method, url: req.originalUrl }) },
        redirect: 'manual',
      });
      res.status(upstream.status);
      upstream.headers.forEach((value, name) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'content-security-policy'].includes(name)) res.setHeader(name, value);
      });
      res.send(Buffer.from(await upstream.arrayBuffer()));
    } catch {
      problem(res, 502, 'bad_gateway', 'The web service did not answer.');
    }
  }
}
