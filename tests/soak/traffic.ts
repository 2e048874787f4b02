/**
 * The soak's traffic, each actor a loop with its own pace, every request through the gateway:
 *   publishers   an ad about once a second each (the limit is 60 a minute), then its confirmation and one
 *                open of its click link by a browser (302 not followed);
 *   rotation     an owner generating a new key for one publisher every few seconds (the publisher uses it
 *                from its next request);
 *   advertisers  listing their campaigns, creating and submitting one now and then, pausing their own;
 *   admin        approving and activating submitted campaigns, pausing churned ones, pausing and
 *                approving again platforms kept aside for it (never the publishers under load), reading
 *                the totals now and then;
 *   visitor      the website's feature slot and one impression report a second or so (the limit is 60 a
 *                minute per client address, and every request comes from 127.0.0.1).
 */
import type { BenchSystem } from '../bench/system';
import type { Browser } from '../bench/workspace';
import type { KeyLedger } from './key-ledger';
import { problemCode, type Recorder } from './recorder';

export const AD_INTERVAL_MS = 1010;
const BROWSER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

export interface Counted {
  adAnswers: number;
  firstConfirmations: number;
  clicks: number;
  impressions: number;
}

export interface RefusedKey {
  endpoint: string;
  publisherId: number;
  sentAt: number;
  code: string;
}

export interface Soak {
  system: BenchSystem;
  recorder: Recorder;
  ledger: KeyLedger;
  counted: Counted;
  refusedValidKeys: RefusedKey[];
  running(): boolean;
}

interface Answer {
  status: number;
  code: string;
  text: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A request through the gateway, timed and recorded; no answer at all is status 0, code `network`. */
async function timed(soak: Soak, endpoint: string, send: () => Promise<Response>): Promise<Answer> {
  const sentAt = Date.now();
  const started = performance.now();
  let answer: Answer;
  try {
    const response = await send();
    const text = await response.text();
    answer = { status: response.status, code: problemCode(response.status, response.headers.get('content-type'), text), text };
  } catch {
    answer = { status: 0, code: 'network', text: '' };
  }
  soak.recorder.add({ endpoint, status: answer.status, code: answer.code, ms: performance.now() - started, sentAt });
  return answer;
}

/** A workspace call of a signed-in browser, timed and recorded. */
async function workspace(soak: Soak, endpoint: string, browser: Browser, method: string, path: string, body?: unknown): Promise<Answer> {
  const sentAt = Date.now();
  const started = performance.now();
  let answer: Answer;
  try {
    const reply = await browser.call(method, path, body);
    answer = { status: reply.status, code: problemCode(reply.status, 'application/json', reply.text), text: reply.text };
  } catch {
    answer = { status: 0, code: 'network', text: '' };
  }
  soak.recorder.add({ endpoint, status: answer.status, code: answer.code, ms: performance.now() - started, sentAt });
  return answer;
}

/** A network call with the publisher's current key; a 401 for a key valid when sent is noted. */
async function withKey(soak: Soak, endpoint: string, publisherId: number, path: string, init: RequestInit = {}): Promise<Answer> {
  const key = soak.ledger.keyOf(publisherId);
  const sentAt = Date.now();
  const answer = await timed(soak, endpoint, () =>
    fetch(`${soak.system.baseUrl}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` } }),
  );
  if (answer.status === 401 && soak.ledger.validAt(key, sentAt)) soak.refusedValidKeys.push({ endpoint, publisherId, sentAt, code: answer.code });
  return answer;
}

export async function publisher(soak: Soak, publisherId: number, offsetMs: number): Promise<void> {
  await sleep(offsetMs);
  let next = Date.now();
  while (soak.running()) {
    // A publisher that fell behind (slow answers) goes on at its pace rather than catching up in a burst.
    next = Math.max(next + AD_INTERVAL_MS, Date.now());
    const ad = await withKey(soak, 'network ad', publisherId, '/api/network/ad?language=en');
    if (ad.status === 200) {
      soak.counted.adAnswers += 1;
      const { delivery_token: token, click_url: clickUrl } = JSON.parse(ad.text) as { delivery_token: string; click_url: string };
      const confirmation = await withKey(soak, 'network delivery', publisherId, '/api/network/delivery', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      if (confirmation.status === 200 && (JSON.parse(confirmation.text) as { first_confirmation?: boolean }).first_confirmation === true) {
        soak.counted.firstConfirmations += 1;
      }
      const click = await timed(soak, 'network click', () =>
        fetch(`${soak.system.baseUrl}${new URL(clickUrl).pathname}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_AGENT, accept: 'text/html' } }),
      );
      // Each link is opened once, by a browser: every 302 is its allocation's first counted click.
      if (click.status === 302) soak.counted.clicks += 1;
    }
    await sleep(next - Date.now());
  }
}

export async function keyRotation(soak: Soak, owners: Map<number, Browser>, everyMs: number): Promise<void> {
  const publishers = [...owners.keys()];
  for (let turn = 0; soak.running(); turn += 1) {
    await sleep(everyMs);
    const publisherId = publishers[turn % publishers.length] as number;
    soak.ledger.rotationSent(publisherId, Date.now());
    const answer = await workspace(soak, 'workspace key rotation', owners.get(publisherId) as Browser, 'POST', `/api/workspace/publishers/${publisherId}/keys`);
    if (answer.status === 201) soak.ledger.issued(publisherId, (JSON.parse(answer.text) as { key: string }).key, Date.now());
  }
}

function campaignInput(serial: number) {
  return {
    name: `Soak campaign ${serial}`,
    format: 'bot',
    title: 'Learn Turkish in 10 minutes a day',
    text: 'Short daily lessons. Free for the first week.',
    destinationUrl: `https://advertiser.example/soak?c=${serial}`,
    buttonText: 'Try it',
    language: 'en',
  };
}

interface Listed {
  items: Array<{ id: number; status: string }>;
}

function idsOf(answer: Answer, status: string): number[] {
  if (answer.status !== 200) return [];
  return (JSON.parse(answer.text) as Listed).items.filter((item) => item.status === status).map((item) => item.id);
}

let serial = 0;

export async function advertiser(soak: Soak, browser: Browser, everyMs: number, createEvery: number): Promise<void> {
  for (let turn = 1; soak.running(); turn += 1) {
    await sleep(everyMs);
    const listed = await workspace(soak, 'workspace campaigns list', browser, 'GET', '/api/workspace/campaigns');
    if (turn % createEvery === 0) {
      serial += 1;
      const created = await workspace(soak, 'workspace campaign create', browser, 'POST', '/api/workspace/campaigns', campaignInput(serial));
      if (created.status === 201) {
        const { id } = JSON.parse(created.text) as { id: number };
        await workspace(soak, 'workspace campaign transition', browser, 'POST', `/api/workspace/campaigns/${id}/submit`);
      }
    } else if (turn % createEvery === Math.floor(createEvery / 2)) {
      const active = idsOf(listed, 'active');
      if (active.length > 0) await workspace(soak, 'workspace campaign transition', browser, 'POST', `/api/workspace/campaigns/${active[0]}/pause`);
    }
  }
}

export async function administrator(soak: Soak, admin: Browser, asidePublishers: number[], everyMs: number, statsEvery: number): Promise<void> {
  for (let turn = 1; soak.running(); turn += 1) {
    await sleep(everyMs);
    const submitted = idsOf(await workspace(soak, 'workspace campaigns list (admin)', admin, 'GET', '/api/workspace/campaigns?status=submitted'), 'submitted');
    if (submitted[0] !== undefined) await workspace(soak, 'workspace campaign transition (admin)', admin, 'POST', `/api/workspace/campaigns/${submitted[0]}/approve`);
    const approved = idsOf(await workspace(soak, 'workspace campaigns list (admin)', admin, 'GET', '/api/workspace/campaigns?status=approved'), 'approved');
    if (approved[0] !== undefined) await workspace(soak, 'workspace campaign transition (admin)', admin, 'POST', `/api/workspace/campaigns/${approved[0]}/activate`);
    const aside = asidePublishers[turn % asidePublishers.length] as number;
    const record = await workspace(soak, 'workspace publisher read (admin)', admin, 'GET', `/api/workspace/publishers/${aside}`);
    if (record.status === 200) {
      const { status } = JSON.parse(record.text) as { status: string };
      const move = status === 'approved' ? 'pause' : 'approve';
      await workspace(soak, 'workspace publisher transition (admin)', admin, 'POST', `/api/workspace/publishers/${aside}/${move}`);
    }
    if (turn % statsEvery === 0) await workspace(soak, 'workspace stats (admin)', admin, 'GET', '/api/workspace/stats');
  }
}

export async function visitor(soak: Soak, slot: string, everyMs: number): Promise<void> {
  const base = soak.system.baseUrl;
  while (soak.running()) {
    await sleep(everyMs);
    const shown = await timed(soak, 'site placement', () => fetch(`${base}/api/site/placements/${slot}`));
    if (shown.status !== 200) continue;
    const { placementId } = JSON.parse(shown.text) as { placementId: string };
    const reported = await timed(soak, 'site impression', () =>
      fetch(`${base}/api/site/placements/${slot}/impressions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: soak.system.origin },
        body: JSON.stringify({ placementId }),
      }),
    );
    if (reported.status === 204) soak.counted.impressions += 1;
  }
}
