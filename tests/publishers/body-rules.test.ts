/**
 * The delivery call's body rules as the errors page and the OpenAPI document state them, through the
 * gateway: plain (uncompressed) UTF-8 JSON only. A declared Content-Type other than JSON, a charset other
 * than UTF-8, a Content-Encoding other than identity, or bytes that are not UTF-8 text: 415
 * unsupported_media_type, and nothing is confirmed. JSON as SPEC.md says: 200, 400, 413.
 */
import zlib from 'node:zlib';
import { problemTypeOf } from '@pilot/platform';
import { expect } from 'chai';
import { signedIn, type Browser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('the delivery body rules, through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let owner: Browser;
  let key: string;

  const confirm = async (body: Buffer | string, headers: Record<string, string> = {}): Promise<Answer> => {
    const answer = await fetch(`${system.baseUrl}/api/network/delivery`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...headers },
      body: typeof body === 'string' ? Buffer.from(body) : body, // a Buffer: fetch adds no Content-Type of its own
    });
    const text = await answer.text();
    return { status: answer.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const freshToken = async (): Promise<string> => {
    const ad = await fetch(`${system.baseUrl}/api/network/ad?language=en`, { headers: { authorization: `Bearer ${key}` } });
    expect(ad.status).to.equal(200);
    return String(((await ad.json()) as Record<string, unknown>).delivery_token);
  };

  before(async () => {
    system = await startSystem();
    const admin = await signedIn(system, ADMIN_ID);
    const advertiser = await signedIn(system, '6401');
    owner = await signedIn(system, '6402');
    await activeCampaign(advertiser, admin, { language: 'en' });
    key = (await approvedPublisher(system, owner, admin)).server.key;
  });

  after(async () => {
    await system?.stop();
  });

  it('refuses with 415 unsupported_media_type each body that is not plain UTF-8 JSON, and confirms nothing', async () => {
    const token = await freshToken();
    const json = JSON.stringify({ token });
    const utf16 = (text: string, bom: boolean) => Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);
    const cases: Array<[string, Buffer, Record<string, string>]> = [
      ['Content-Type: application/xml', Buffer.from(json), { 'content-type': 'application/xml' }],
      ['Content-Type: text/plain', Buffer.from(json), { 'content-type': 'text/plain' }],
      ['a form', Buffer.from(json), { 'content-type': 'application/x-www-form-urlencoded' }],
      ['charset=foo', Buffer.from(json), { 'content-type': 'application/json; charset=foo' }],
      ['charset=utf-16 with a UTF-16 body', utf16(json, true), { 'content-type': 'application/json; charset=utf-16' }],
      ['a UTF-16 body with its byte order mark', utf16(json, true), { 'content-type': 'application/json' }],
      ['a UTF-16 body without a byte order mark nor a Content-Type', utf16(json, false), {}],
      ['Content-Encoding: gzip with a gzip body', zlib.gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
      ['Content-Encoding: gzip on a plain body', Buffer.from(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
      ['Content-Encoding: br', zlib.brotliCompressSync(json), { 'content-type': 'application/json', 'content-encoding': 'br' }],
    ];
    for (const [name, body, headers] of cases) {
      const answer = await confirm(body, headers);
      expect(answer.status, name).to.equal(415);
      expect(answer.body, name).to.include({ code: 'unsupported_media_type', type: problemTypeOf('unsupported_media_type', system.baseUrl) });
    }
    // None of them confirmed the token: the first plain confirmation is still the first.
    expect(await confirm(json, { 'content-type': 'application/json' })).to.deep.equal({ status: 200, body: { status: 'confirmed', first_confirmation: true } });
  });

  it('reads plain JSON as SPEC.md says: with or without a Content-Type, charset=utf-8, identity; 400 and 413 as before', async () => {
    const accepted: Array<[string, Record<string, string>]> = [
      ['no Content-Type', {}],
      ['application/json', { 'content-type': 'application/json' }],
      ['charset=UTF-8 and identity', { 'content-type': 'application/json; charset=UTF-8', 'content-encoding': 'identity' }],
      ['a +json type', { 'content-type': 'application/vnd.pilot+json' }],
    ];
    for (const [name, headers] of accepted) {
      const answer = await confirm(JSON.stringify({ token: await freshToken() }), headers);
      expect(answer, name).to.deep.equal({ status: 200, body: { status: 'confirmed', first_confirmation: true } });
    }
    expect((await confirm('{"token":', { 'content-type': 'application/json' })).body.code).to.equal('invalid_json');
    expect((await confirm('{"token": 1}', {})).body.code).to.equal('invalid_token');
    const tooLong = await confirm(JSON.stringify({ token: await freshToken() }).padEnd(201, ' '), { 'content-type': 'application/json' });
    expect(tooLong.status).to.equal(413);
    expect(tooLong.body.code).to.equal('payload_too_large');
    const multibyte = await confirm(`{"token": "${'é'.repeat(150)}"}`, { 'content-type': 'application/json' }); // 165 characters, 315 bytes
    expect(multibyte.body.code, 'the limit counts characters, not bytes').to.equal('invalid_token');
  });
});
