import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { AD_CHARACTER_LIMITS, adProblem, checkAd, checkDeliveryConfirmed, checkProblem, CLIENT_VERSION, NetworkClient, type Ad } from '../src';
import { AdSchema } from '../src/generated/schemas';

const AD: Ad = {
  campaign_id: 7,
  title: 'Learn Turkish',
  text: 'Short <b>daily</b> lessons & more',
  button_text: 'Try it',
  image_url: 'https://cdn.example/turkish.png',
  click_url: 'https://pilot.example/api/network/click/abc.DEF_123-x',
  delivery_token: 'dt.abc',
  expires_in: 3600,
  sponsored: true,
  billing: 'pilot_non_billable',
};

describe('network client answer checks (unit)', () => {
  describe('the Ad, by the OpenAPI schema', () => {
    it('accepts an Ad and returns a copy of it', () => {
      const checked = checkAd(AD);
      expect(checked).to.deep.equal({ ok: true, value: AD });
      expect(checked.ok && checked.value).to.not.equal(AD);
    });

    it('ignores fields it does not know (a newer server may add some) and leaves them out of the result', () => {
      const newer = { ...AD, placement_hint: 'top', advertiser: { name: 'A' } };
      const checked = checkAd(newer);
      expect(checked).to.deep.equal({ ok: true, value: AD });
      expect(newer).to.have.property('placement_hint', 'top'); // the caller's object is not changed
      expect(adProblem(newer)).to.equal(null);
    });

    it('refuses a missing field, a wrong type, a wrong constant, a link that is not one', () => {
      const { title: _title, ...withoutTitle } = AD;
      const cases: [unknown, string][] = [
        [withoutTitle, 'missing title'],
        [{ ...AD, campaign_id: '7' }, 'campaign_id'],
        [{ ...AD, campaign_id: 0 }, 'campaign_id'],
        [{ ...AD, sponsored: false }, 'sponsored'],
        [{ ...AD, billing: 'billable' }, 'billing'],
        [{ ...AD, expires_in: 60 }, 'expires_in'],
        [{ ...AD, image_url: 'http://cdn.example/a.png' }, 'image_url'],
        [{ ...AD, click_url: 'https://elsewhere.example/landing' }, 'click_url'],
        [{ ...AD, click_url: '/api/network/click/abc' }, 'click_url'],
        [{ ...AD, title: '' }, 'title'],
        [null, 'the body'],
        [[AD], 'the body'],
      ];
      for (const [body, mentioned] of cases) {
        const problem = adProblem(body);
        expect(problem, JSON.stringify(body)).to.be.a('string').and.contain(mentioned);
      }
    });

    it('checks the text limits in characters as people see them', () => {
      expect(AD_CHARACTER_LIMITS).to.deep.equal({ title: 100, text: 700, button_text: 32 });
      for (const [field, limit] of Object.entries(AD_CHARACTER_LIMITS)) {
        expect(checkAd({ ...AD, [field]: 'a'.repeat(limit) }).ok, `${field} at its limit`).to.equal(true);
        expect(adProblem({ ...AD, [field]: 'a'.repeat(limit + 1) }), `${field} over its limit`).to.contain(field);
      }
      // A flag is one character of two code points (four UTF-16 units): 100 of them are a valid title.
      const flags = '🇹🇷'.repeat(100);
      expect(checkAd({ ...AD, title: flags }).ok).to.equal(true);
      expect(adProblem({ ...AD, title: `${flags}🇹🇷` })).to.equal('title has more than 100 characters');
      // One character built of too many code units is refused by the schema's bound.
      expect(adProblem({ ...AD, button_text: `a${'\u0301'.repeat(300)}` })).to.contain('button_text');
    });

    it('uses the schema of the document, whose code point bounds allow 8 UTF-16 units a character', () => {
      for (const [field, limit] of Object.entries(AD_CHARACTER_LIMITS)) {
        expect(AdSchema.properties[field as keyof typeof AD_CHARACTER_LIMITS].maxLength).to.equal(limit * 8);
      }
    });
  });

  it('checks a delivery confirmation and a problem by their schemas', () => {
    expect(checkDeliveryConfirmed({ status: 'confirmed', first_confirmation: false, at: 'now' })).to.deep.equal({
      ok: true,
      value: { status: 'confirmed', first_confirmation: false },
    });
    expect(checkDeliveryConfirmed({ status: 'confirmed' }).ok).to.equal(false);
    const problem = { type: 'urn:pilot:problem:invalid_key', title: 'Unauthorized', status: 401, detail: 'x', code: 'invalid_key' };
    expect(checkProblem(problem)).to.deep.equal({ ok: true, value: problem });
    expect(checkProblem({ ...problem, code: 'Not A Code' }).ok).to.equal(false);
  });

  it('returns the Ad of a 200 without the fields it does not know', async () => {
    const fetchImpl = (async () =>
      new Response(JSON.stringify({ ...AD, new_field: 1 }), { status: 200, headers: { 'content-type': 'application/json' } })) as typeof fetch;
    const client = new NetworkClient({ baseUrl: 'https://pilot.example', apiKey: 'k', fetch: fetchImpl });
    expect(await client.requestAd()).to.deep.equal(AD);
  });

  it('sends the version of its package.json in the User-Agent', async () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };
    expect(CLIENT_VERSION).to.equal(manifest.version);
    let agent: string | undefined;
    const fetchImpl = (async (_input: unknown, init?: RequestInit) => {
      agent = (init?.headers as Record<string, string>)['user-agent'];
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    await new NetworkClient({ baseUrl: 'https://pilot.example', apiKey: 'k', fetch: fetchImpl }).requestAd();
    expect(agent).to.equal(`@pilot/network-client/${manifest.version}`);
  });
});
