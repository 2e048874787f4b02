/** Records set up through the workspace the way people create them: an owner asks, an administrator decides. */
import { expect } from 'chai';
import { PublisherServer, type Browser } from './clients';
import type { System } from './system';

export interface Campaign {
  id: number;
  status: string;
  destinationUrl: string;
  [field: string]: unknown;
}

export interface Publisher {
  id: number;
  status: string;
  [field: string]: unknown;
}

let serial = 0;

export function campaignInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  serial += 1;
  return {
    name: `Spring push ${serial}`,
    format: 'bot',
    title: 'Learn Turkish in 10 minutes a day',
    text: 'Short daily lessons. Free for the first week.',
    destinationUrl: `https://advertiser.example/landing?c=${serial}`,
    buttonText: 'Try it',
    language: 'en',
    ...overrides,
  };
}

/** A campaign of `owner`, left as a draft. */
export async function draftCampaign(owner: Browser, overrides: Record<string, unknown> = {}): Promise<Campaign> {
  const created = await owner.post<Campaign>('/api/workspace/campaigns', campaignInput(overrides));
  expect(created.status, created.text).to.equal(201);
  return created.body;
}

export async function activeCampaign(owner: Browser, admin: Browser, overrides: Record<string, unknown> = {}): Promise<Campaign> {
  const { id } = await draftCampaign(owner, overrides);
  for (const [who, action] of [
    [owner, 'submit'],
    [admin, 'approve'],
    [admin, 'activate'],
  ] as const) {
    const moved = await who.post<Campaign>(`/api/workspace/campaigns/${id}/${action}`);
    expect(moved.status, `${action}: ${moved.text}`).to.equal(200);
  }
  return (await owner.get<Campaign>(`/api/workspace/campaigns/${id}`)).body;
}

let botSerial = 0;

export async function approvedPublisher(
  system: System,
  owner: Browser,
  admin: Browser,
  type: 'bot' | 'channel' = 'bot',
): Promise<{ publisher: Publisher; server: PublisherServer }> {
  botSerial += 1;
  const link = type === 'bot' ? `@e2e_sample_${botSerial}_bot` : `https://t.me/e2e_channel_${botSerial}`;
  const created = await owner.post<Publisher>('/api/workspace/publishers', { type, link });
  expect(created.status, created.text).to.equal(201);
  const id = created.body.id;
  expect((await owner.post(`/api/workspace/publishers/${id}/submit`)).status).to.equal(200);
  const approved = await admin.post(`/api/workspace/publishers/${id}/approve`);
  expect(approved.status, approved.text).to.equal(200);
  const key = await owner.post<{ key: string }>(`/api/workspace/publishers/${id}/keys`);
  expect(key.status, key.text).to.equal(201);
  return { publisher: { ...created.body, status: 'approved' }, server: new PublisherServer(system, key.body.key) };
}
