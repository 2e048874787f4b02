import { expect } from 'chai';
import { ApiError, NetworkError, describeError, query } from '../frontend/src/api';
import { LIMITS, httpsUrlHint, lengthHint, lengthOf, safeHttpsUrl } from '../frontend/src/limits';
import { MAX_CHART_DAYS, MIN_BAR_PX, SERIES, chartOf, minBarSize, rangeProblem, seriesOrder, timeline } from '../frontend/src/chart-series';
import { isRetryable, retryDelayMs } from '../frontend/src/retry';
import { fieldMessage } from '../frontend/src/field-messages';
import { safeWorkspacePath } from '../frontend/src/hooks/deep-link';
import { placementState, saveOutcome } from '../frontend/src/placement-schedule';
import { isSpaRoute } from '../src/http/static-site';
import { isKnownPage } from '../src/http/site-routes';

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
    expect(describeError(new ApiError(409, 'invalid_transition', 'This campaign is still a draft, so it cannot be activated now.'))).to.equal(
      'This campaign is still a draft, so it cannot be activated now.',
    );
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

describe('the walk-through fixes (pure parts)', () => {
  it('says a service refusal in the words of the form, without the internal field name', () => {
    expect(fieldMessage({ field: 'title', code: 'too_short', message: 'title must have at least 1 visible character(s)' })).to.equal('Enter at least one visible character.');
    expect(fieldMessage({ field: 'destinationUrl', code: 'invalid_url', message: 'destinationUrl must not contain spaces, control characters or backslashes' })).to.equal(
      'Must not contain spaces, control characters or backslashes.',
    );
    expect(fieldMessage({ field: 'destinationUrl', code: 'https_required', message: 'destinationUrl must use https' })).to.equal('The address must start with https://');
    expect(fieldMessage({ field: 'link', code: 'invalid_link', message: 'must be https://t.me/<username> or @username' })).to.equal('Must be https://t.me/<username> or @username.');
  });

  it('makes the chart a timeline: every day of the range, zeros where nothing happened', () => {
    const day = (date: string, adRequests: number) => ({ date, adRequests, confirmedDeliveries: 0, clickedLinks: 0 });
    expect(timeline([day('2026-02-01', 3), day('2026-02-04', 1)]).map((d) => [d.date, d.adRequests])).to.deep.equal([
      ['2026-02-01', 3],
      ['2026-02-02', 0],
      ['2026-02-03', 0],
      ['2026-02-04', 1],
    ]);
    expect(timeline([], { from: '2026-02-27', to: '2026-03-01' }).map((d) => d.date)).to.deep.equal(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(timeline([])).to.deep.equal([]);
    expect(timeline([], { from: '2020-01-01', to: '2026-01-01' }), 'a range of years keeps every day (the CSV)').to.have.length(2193);
    expect(minBarSize(1)).to.equal(MIN_BAR_PX);
    expect(minBarSize(0)).to.equal(0);
    expect(minBarSize([0, 1])).to.equal(MIN_BAR_PX);
    expect(SERIES.map((series) => seriesOrder({ dataKey: series.key }))).to.deep.equal([0, 1, 2]);
    expect(rangeProblem('2026-02-10', '2026-02-01')).to.match(/after/);
    expect(rangeProblem('2026-02-01', '2026-02-01')).to.equal(null);
    expect(safeHttpsUrl(null)).to.equal(null);
  });

  it('draws a year or less by day and a longer range by month, summing every day so the bars cover what the totals cover', () => {
    const day = (date: string, adRequests: number) => ({ date, adRequests, confirmedDeliveries: 1, clickedLinks: 0 });
    const year = timeline([day('2025-01-01', 2)], { from: '2025-01-01', to: '2025-12-31' });
    expect(chartOf(year).unit).to.equal('day');
    expect(chartOf(year).points).to.have.length(365);
    const long = timeline([day('2024-12-31', 2), day('2025-01-01', 3), day('2026-03-05', 7)], { from: '2024-12-01', to: '2026-03-10' });
    expect(long.length).to.be.above(MAX_CHART_DAYS);
    const chart = chartOf(long);
    expect(chart.unit).to.equal('month');
    expect(chart.points.map((point) => point.period)).to.have.length(16);
    expect(chart.points[0]).to.deep.equal({ period: '2024-12', adRequests: 2, confirmedDeliveries: 1, clickedLinks: 0 });
    expect(chart.points[chart.points.length - 1]).to.deep.equal({ period: '2026-03', adRequests: 7, confirmedDeliveries: 1, clickedLinks: 0 });
    const sum = (key: 'adRequests' | 'confirmedDeliveries') => chart.points.reduce((total, point) => total + point[key], 0);
    expect(sum('adRequests')).to.equal(12);
    expect(sum('confirmedDeliveries')).to.equal(3);
  });

  it('names a placement Scheduled, Live or Ended from its schedule', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    expect(placementState({ status: 'active', startsAt: '2026-03-02T00:00:00Z', endsAt: null }, now)).to.equal('scheduled');
    expect(placementState({ status: 'active', startsAt: '2026-03-01T00:00:00Z', endsAt: '2026-03-01T12:00:00Z' }, now)).to.equal('ended');
    expect(placementState({ status: 'active', startsAt: null, endsAt: null }, now)).to.equal('live');
    expect(placementState({ status: 'paused', startsAt: null, endsAt: null }, now)).to.equal('paused');
    expect(saveOutcome('a', 2, { placement: { placementId: 'a' }, impressions: 2 })).to.contain('Nothing changed');
    expect(saveOutcome('a', 2, { placement: { placementId: 'b' }, impressions: 0 })).to.contain('the previous placement had 2');
  });

  it('keeps only workspace paths of this site as the place to go after sign-in', () => {
    expect(safeWorkspacePath('/workspace/campaigns/8')).to.equal('/workspace/campaigns/8');
    expect(safeWorkspacePath('/workspace?x=1')).to.equal('/workspace?x=1');
    for (const bad of ['//evil.example/workspace', 'https://evil.example/workspace', '/workspacex', '/signin', '/workspace\\..\\x', 7]) {
      expect(safeWorkspacePath(bad), String(bad)).to.equal(null);
    }
  });

  it('retries a failed load with backoff from the server’s Retry-After, up to 30 seconds, only when waiting can help', () => {
    expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, null))).to.deep.equal([2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(retryDelayMs(0, 5)).to.equal(5_000);
    expect(isRetryable(new ApiError(503, 'unavailable', 'x'))).to.equal(true);
    expect(isRetryable(new NetworkError())).to.equal(true);
    expect(isRetryable(new ApiError(404, 'not_found', 'x'))).to.equal(false);
  });

  it('knows the pages of the app, so any other address answers 404', () => {
    for (const page of ['/', '/tr', '/signin', '/sandbox', '/workspace', '/workspace/', '/workspace/campaigns/new', '/workspace/campaigns/8', '/workspace/publishers/12', '/workspace/audit', '/workspace/placements']) {
      expect(isKnownPage(page), page).to.equal(true);
    }
    for (const page of ['/no-such-page', '/workspace/nothing', '/workspace/campaigns/0', '/workspace/campaigns/abc', '/signin/x']) {
      expect(isKnownPage(page), page).to.equal(false);
    }
  });
});
