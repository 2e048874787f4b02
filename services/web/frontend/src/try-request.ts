/**
 * The "send a test request" of a platform's page: only a sandbox test key is sent from the
 * browser (its requests are never counted); a live key typed here is refused before anything is sent,
 * because its ad requests count against the platform's limit and totals.
 */
export const TEST_KEY_PREFIX = 'pilot_pk_test_';
export const LIVE_KEY_PREFIX = 'pilot_pk_';

export function testKeyProblem(key: string): string | null {
  const value = key.trim();
  if (!value) return 'Paste the test key (it starts with pilot_pk_test_).';
  if (value.startsWith(TEST_KEY_PREFIX)) return null;
  if (value.startsWith(LIVE_KEY_PREFIX)) return 'This is a live key: its requests are counted. Use the test key here.';
  return 'This is not a key of this service: a test key starts with pilot_pk_test_.';
}

/** The ad request a platform's server sends, as a curl command. */
export function exampleCommand(base: string, language: string): string {
  return `curl -H "Authorization: Bearer $PILOT_KEY" "${base}/api/network/ad?language=${encodeURIComponent(language)}"`;
}

/** What an ad request answers when a creative is found (the shape of SPEC.md; the values are an example). */
export function exampleAnswer(base: string): string {
  return JSON.stringify(
    {
      campaign_id: 12,
      title: 'Spring sale',
      text: 'Everything 20% off this week.',
      button_text: 'Open the shop',
      image_url: null,
      click_url: `${base}/api/network/click/…`,
      delivery_token: '…',
      expires_in: 3600,
      sponsored: true,
      billing: 'pilot_non_billable',
    },
    null,
    2,
  );
}

export interface TryAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Every answer header the publishers guide documents on the ad request, in the guide's spelling (the rest are the proxy's). */
export const SHOWN_HEADERS = [
  'Content-Type',
  'Cache-Control',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
  'Pilot-No-Fill-Reason',
  'X-Pilot-Test',
  'WWW-Authenticate',
  'X-Request-Id',
];

export async function sendTestRequest(key: string, language: string, forced: string, signal?: AbortSignal): Promise<TryAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key.trim()}`, accept: 'application/json' };
  if (forced) headers['x-pilot-test-answer'] = forced;
  const response = await fetch(`/api/network/ad?language=${encodeURIComponent(language)}`, { headers, credentials: 'omit', cache: 'no-store', signal });
  const text = await response.text();
  let body = text;
  try {
    body = text ? JSON.stringify(JSON.parse(text), null, 2) : '';
  } catch {
    // not JSON: shown as it came
  }
  return {
    status: response.status,
    headers: SHOWN_HEADERS.flatMap((name) => {
      const value = response.headers.get(name);
      return value === null ? [] : [[name, value] as [string, string]];
    }),
    body,
  };
}
