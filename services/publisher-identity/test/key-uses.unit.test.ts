import { expect } from 'chai';
import { withKeyUses, type PublisherView } from '../src/domain/publisher';

describe('a platform\'s keys last used', () => {
  const view: PublisherView = {
    id: 7,
    type: 'bot',
    link: 'https://t.me/uses_bot',
    status: 'approved',
    ownerAccountId: '2002',
    keyCreatedAt: '2026-06-01T12:00:00.000Z',
    testKeyCreatedAt: null,
    previousKeyExpiresAt: null,
    rejectionReason: null,
    pauseReason: null,
    apiBaseUrl: 'https://ads.example',
    createdAt: '2026-06-01T11:00:00.000Z',
    updatedAt: '2026-06-01T12:00:00.000Z',
  };

  it('shows a use of the current key, and none for a kind of key the platform does not have', () => {
    const used = withKeyUses(view, { live: new Date('2026-06-01T12:05:00.000Z'), test: new Date('2026-06-01T12:06:00.000Z') });
    expect(used).to.include({ keyLastUsedAt: '2026-06-01T12:05:00.000Z', testKeyLastUsedAt: null });
  });

  it('does not give a new key the uses of the key it replaced', () => {
    const rotated = withKeyUses(view, { live: new Date('2026-06-01T11:59:59.000Z'), test: null });
    expect(rotated).to.include({ keyLastUsedAt: null, testKeyLastUsedAt: null });
  });
});
