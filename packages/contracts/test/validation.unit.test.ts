import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import {
  CreateCampaignBody,
  HttpsUrl,
  httpsUrlProblem,
  NewPublisherBody,
  PlacementBody,
  PlainText,
  StringEnum,
  textProblem,
  validatorOf,
} from '../src';

const codes = (result: { ok: boolean; errors?: { field: string; code: string }[] }) =>
  result.ok ? [] : (result.errors ?? []).map((error) => `${error.field}:${error.code}`);

describe('contracts: validatorOf and the custom keywords', () => {
  const check = validatorOf(
    Type.Object(
      {
        title: PlainText(5, 'title'),
        body: Type.Optional(PlainText(10, 'body', true)),
        link: HttpsUrl('link'),
        image: Type.Optional(HttpsUrl('image', true)),
        kind: StringEnum(['a', 'b'] as const, 'unsupported_kind'),
        count: Type.Optional(Type.Integer({ minimum: 1, 'x-error-code': 'invalid_type' })),
      },
      { additionalProperties: false },
    ),
  );
  const valid = { title: 'Hello', link: 'https://example.com/', kind: 'a' };

  it('gives the value typed by the schema, without the nulls', () => {
    expect(check({ ...valid, image: null, count: null })).to.deep.equal({ ok: true, value: valid });
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, undefined, [], 'x', 3]) expect(codes(check(body))).to.deep.equal(['(body):invalid_type']);
  });

  it('reports one problem per field: unknown fields first, then in the order of the schema', () => {
    expect(codes(check({ zzz: 1, kind: 'c', link: 'http://example.com', title: '' }))).to.deep.equal([
      'zzz:unknown_field',
      'title:too_short',
      'link:https_required',
      'kind:unsupported_kind',
    ]);
  });

  it('counts a null required field as missing and a wrong type as invalid_type', () => {
    expect(codes(check({ ...valid, title: null }))).to.deep.equal(['title:required']);
    expect(codes(check({ ...valid, title: 5 }))).to.deep.equal(['title:invalid_type']);
  });

  it('gives the declared x-error-code for any failure but a wrong type, and a refused enum whatever its type', () => {
    expect(codes(check({ ...valid, count: 0 }))).to.deep.equal(['count:invalid_type']);
    expect(codes(check({ ...valid, count: '1' }))).to.deep.equal(['count:invalid_type']);
    expect(codes(check({ ...valid, kind: 1 }))).to.deep.equal(['kind:unsupported_kind']);
  });

  it('x-text: graphemes, encoded length, control characters, blankness; multi-line texts keep line breaks', () => {
    expect(codes(check({ ...valid, title: '🇹🇷🇹🇷🇹🇷🇹🇷🇹🇷' }))).to.deep.equal([]);
    expect(codes(check({ ...valid, title: 'abcdef' }))).to.deep.equal(['title:too_long']);
    expect(codes(check({ ...valid, title: `a${'\u0301'.repeat(40)}` }))).to.deep.equal(['title:too_long_encoded']);
    expect(codes(check({ ...valid, title: 'a\nb' }))).to.deep.equal(['title:invalid_characters']);
    expect(codes(check({ ...valid, body: 'a\nb' }))).to.deep.equal([]);
    expect(codes(check({ ...valid, title: '   ' }))).to.deep.equal(['title:blank']);
  });

  it('x-https-url: an empty optional link is none, an empty required one is required', () => {
    expect(check({ ...valid, image: '' }).ok).to.equal(true);
    expect(codes(check({ ...valid, link: '' }))).to.deep.equal(['link:required']);
    expect(codes(check({ ...valid, link: 'https://a@example.com\\x' }))).to.deep.equal(['link:invalid_url']);
    expect(codes(check({ ...valid, link: 'https://user@example.com/' }))).to.deep.equal(['link:credentials_not_allowed']);
    expect(codes(check({ ...valid, image: 'https://10.0.0.1/a.png' }))).to.deep.equal(['image:ip_address_not_allowed']);
  });

  it('names the field in every message', () => {
    const result = check({ title: '', link: 'x', kind: 'c' });
    expect(result.ok).to.equal(false);
    if (!result.ok) for (const error of result.errors) expect(error.message).to.be.a('string').and.not.empty;
  });
});

describe('contracts: the rules behind the keywords', () => {
  it('textProblem and httpsUrlProblem give null for a good value and the code otherwise', () => {
    expect(textProblem('title', 'ok', { max: 5 })).to.equal(null);
    expect(textProblem('title', '', { max: 5 })?.code).to.equal('too_short');
    expect(httpsUrlProblem('destinationUrl', 'https://example.com/')).to.equal(null);
    expect(httpsUrlProblem('destinationUrl', 'https://user@example.com/')?.code).to.equal('credentials_not_allowed');
    expect(httpsUrlProblem('destinationUrl', 'https://localhost/')?.code).to.equal('private_host');
  });
});

describe('contracts: the same rule gives the same code in every body', () => {
  const campaign = validatorOf(CreateCampaignBody);
  const placement = validatorOf(PlacementBody);
  const creative = { name: 'n', format: 'bot', title: 't', text: 'x', destinationUrl: 'https://example.com/', buttonText: 'b', language: 'en' };
  const slot = { title: 't', buttonText: 'b', destinationUrl: 'https://example.com/', status: 'draft' };

  for (const [field, value, code] of [
    ['title', '', 'too_short'],
    ['title', '   ', 'blank'],
    ['buttonText', 'b'.repeat(33), 'too_long'],
    ['destinationUrl', '/relative', 'https_required'],
    ['destinationUrl', 'https://a\\b.example.com/', 'invalid_url'],
    ['destinationUrl', 'https://user@example.com/', 'credentials_not_allowed'],
    ['destinationUrl', 'https://[::1]/', 'ip_address_not_allowed'],
    ['buttonText', 'Buy \u202enow', 'bidi_control_characters'],
    ['title', '\u2067Sale\u2069', 'bidi_control_characters'],
  ] as const) {
    it(`${field} = ${JSON.stringify(value)}: ${code} for campaigns and placements`, () => {
      expect(codes(campaign({ ...creative, [field]: value }))).to.deep.equal([`${field}:${code}`]);
      expect(codes(placement({ ...slot, [field]: value }))).to.deep.equal([`${field}:${code}`]);
    });
  }

  it('refuses text-direction controls in every creative text of a campaign, each field with its own error', () => {
    const result = campaign({ ...creative, name: 'n\u200e', title: 't\u200f', text: 'x\u061c', buttonText: 'b\u202a' });
    expect(codes(result)).to.have.members(['name:bidi_control_characters', 'title:bidi_control_characters', 'text:bidi_control_characters', 'buttonText:bidi_control_characters']);
  });

  it('refuses a field named like a token in a new platform, with its own code and message', () => {
    const result = validatorOf(NewPublisherBody)({ type: 'bot', link: '@weather_bot', botToken: 'x' });
    expect(result.ok ? [] : result.errors).to.deep.equal([{ field: 'botToken', code: 'bot_token_refused', message: 'a bot token is never requested or accepted' }]);
  });
});

describe('contracts: messages', () => {
  it('says which type a field must have', () => {
    const result = validatorOf(Type.Object({ placementId: Type.String(), count: Type.Integer() }))({ placementId: 7, count: 'x' });
    expect(result.ok ? [] : result.errors).to.deep.equal([
      { field: 'placementId', code: 'invalid_type', message: 'placementId must be a string' },
      { field: 'count', code: 'invalid_type', message: 'count must be an integer' },
    ]);
  });
});
