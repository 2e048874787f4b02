import { expect } from 'chai';
import { ApiError, NetworkError, describeError, query } from '../frontend/src/api';
import { LIMITS, httpsUrlHint, lengthHint, lengthOf, safeHttpsUrl } from '../frontend/src/limits';
import { isSpaRoute } from '../src/http/static-site';

describe('creative limit hints (mirror of SPEC.md, the server decides)', () => {
  it('counts characters as the campaign service does (what a person sees as one), so an emoji is one character', () => {
    expect(lengthOf('😀a')).to.equal(2);
    expect(lengthOf('👨‍👩‍👧 family')).to.equal(8);
    expect(lengthOf('e\u0301')).to.equal(1);
  });

  it('asks for a value below the minimum and names the maximum above it', () => {
    expect(lengthHint('', LIMITS.title)).to.equal('Required.');
    expect(lengthHint('x'.repeat(100), LIMITS.title)).to.equal(null);
    expect(lengthHint('x'.repeat(101), LIMITS.title)).to.equal('Too long: at most 100 characters.');
    expect(lengthHint('x'.repeat(33), LIMITS.buttonText)).to.equal('Too long: at most 32 characters.');
    expect(lengthHint('x'.repeat(700), LIMITS.text)).to.equal(null);
  });

  it('accepts only https addresses without user name or password', () => {
    expect(httpsUrlHint('https://shop.example/a', true)).to.equal(null);
    expect(httpsUrlHint('', false)).to.equal(null);
    expect(httpsUrlHint('', true)).to.equal('Required.');
    expect(httpsUrlHint('http://shop.example', true)).to.equal('The address must start with https://');
    expect(httpsUrlHint('https://user:pw@shop.example', true)).to.equal('The address must not contain a user name or password.');
    expect(httpsUrlHint('shop.example', true)).to.equal('Enter a full address starting with https://');
  });

  it('never lets a javascript: or http link into an href or src', () => {
    expect(safeHttpsUrl('javascript:alert(1)')).to.equal(null);
    expect(safeHttpsUrl('http://a.example/')).to.equal(null);
    expect(safeHttpsUrl('https://a.example/x')).to.equal('https://a.example/x');
    expect(safeHttpsUrl(null)).to.equal(null);
  });
});

describe('API errors in words', () => {
  it('shows the problem detail of a refused request', () => {
    expect(describeError(new ApiError(409, 'invalid_transition', 'A draft campaign cannot be activated.'))).to.equal('A draft campaign cannot be activated.');
  });

  it('explains 401, 403, 429 and 503 without jargon', () => {
    expect(describeError(new ApiError(401, 'unauthenticated', 'x'))).to.equal('Your session has ended. Please sign in again.');
    expect(describeError(new ApiError(403, 'forbidden', 'Only administrators.'))).to.equal('You are not allowed to do this. Only administrators.');
    expect(describeError(new ApiError(403, 'origin_refused', 'x'))).to.contain('reload the page');
    expect(describeError(new ApiError(429, 'rate_limited', 'x', [], 30))).to.equal('Too many requests. Try again in 30 seconds.');
    expect(describeError(new ApiError(503, 'service_unavailable', 'x', [], 5))).to.equal('The service is having trouble right now; try again in 5 seconds.');
    expect(describeError(new NetworkError())).to.contain('could not be reached');
  });

  it('builds query strings from the filled filters only', () => {
    expect(query({ status: 'draft', campaignId: '', from: undefined })).to.equal('?status=draft');
    expect(query({})).to.equal('');
  });
});

describe('single-page app routes', () => {
  it('falls back to the app for page paths, never for /api, /assets or files', () => {
    expect(isSpaRoute('/workspace/campaigns/3')).to.equal(true);
    expect(isSpaRoute('/tr')).to.equal(true);
    expect(isSpaRoute('/api/workspace/campaigns')).to.equal(false);
    expect(isSpaRoute('/assets/index-abc')).to.equal(false);
    expect(isSpaRoute('/favicon.ico')).to.equal(false);
  });
});
