/**
 * The guide's pages as an outside developer reads them with plain HTTP (no JavaScript): /guide,
 * /guide/errors and /guide/changelog carry their text as served, and the `type` of every documented problem
 * code (each code the errors document has a section for, each one the network's OpenAPI document lists) leads
 * to the errors page, where the element with the code as its id explains it.
 */

const ERRORS_DOCUMENT = path.resolve(__dirname, '../../docs/publishers-errors.md');
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { problemTypeOf } from '@pilot/platform';
import { expect } from 'chai';
import { startSystem, type System } from '../e2e/support/system';

/** Every problem `type` an OpenAPI document's examples carry (PUBLIC_BASE_URL/guide/errors#<code>). */
function problemTypesIn(document: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(document)) for (const item of document) problemTypesIn(item, found);
  else if (document && typeof document === 'object') {
    for (const [field, value] of Object.entries(document)) {
      if (field === 'type' && typeof value === 'string' && value.includes('/guide/errors#')) found.add(value);
      else problemTypesIn(value, found);
    }
  }
  return found;
}

/** The text of the element whose id is `id` (the errors page's code sections hold no nested section). */
function textOfElement(html: string, id: string): string | null {
  const open = new RegExp(`<(\\w+)[^>]* id="${id}"[^>]*>`).exec(html);
  if (!open) return null;
  const tag = open[1];
  const rest = html.slice(open.index + open[0].length);
  const close = rest.indexOf(`</${tag}>`);
  return rest
    .slice(0, close < 0 ? undefined : close)
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('the guide\'s pages without JavaScript, through the gateway', function () {
  this.timeout(120_000);
  let system: System;

  before(async () => {
    system = await startSystem();
  });

  after(async () => {
    await system?.stop();
  });

  it('serves /guide, /guide/errors and /guide/changelog with their text in the HTML as served', async () => {
    const pages: Array<[string, string[]]> = [
      ['/guide', ['Publishers guide', 'Authorization: Bearer', 'Pilot-No-Fill-Reason']],
      ['/guide/errors', ['Error codes', 'missing_key', 'unsupported_media_type']],
      ['/guide/changelog', ['Changelog', '0.1.0']],
    ];
    for (const [page, phrases] of pages) {
      const answer = await fetch(`${system.baseUrl}${page}`);
      expect(answer.status, page).to.equal(200);
      expect(answer.headers.get('content-type'), page).to.contain('text/html');
      const html = await answer.text();
      expect(html, page).to.match(/<div id="root"><div class="page">/);
      for (const phrase of phrases) expect(html, `${page}: ${phrase}`).to.contain(phrase);
      expect(html, `${page}: the site's origin in its examples`).to.not.contain('https://pilot.example');
    }
  });

  it('dates every entry of the changelog, as served', async () => {
    const html = await (await fetch(`${system.baseUrl}/guide/changelog`)).text();
    const changes = html.slice(html.indexOf('<h2 id="changes">'));
    const entries = [...changes.matchAll(/<h3[^>]*>([^<]*)<\/h3>/g)].map((match) => match[1] ?? '');
    expect(entries.length).to.be.at.least(2);
    for (const entry of entries) expect(entry, 'an entry opens with its date').to.match(/^\d{4}-\d{2}-\d{2}: /);
  });

  it('explains every documented problem code in the element of its type\'s page that has the code as id', async () => {
    const types = problemTypesIn(await (await fetch(`${system.baseUrl}/api/network/openapi.json`)).json());
    expect(types.size, 'problem codes the network document lists').to.be.above(10);
    const documented = [...(await readFile(ERRORS_DOCUMENT, 'utf8')).matchAll(/^### (\w+)$/gm)].map((match) => match[1] ?? '');
    expect(documented.length, 'codes the errors document explains').to.be.above(40);
    for (const code of documented) types.add(problemTypeOf(code, system.baseUrl));
    const pages = new Map<string, string>();
    for (const type of types) {
      const url = new URL(type);
      expect(url.origin).to.equal(system.baseUrl);
      const page = url.href.slice(0, url.href.indexOf('#'));
      if (!pages.has(page)) {
        const answer = await fetch(page);
        expect(answer.status, page).to.equal(200);
        pages.set(page, await answer.text());
      }
      const code = decodeURIComponent(url.hash.slice(1));
      const text = textOfElement(pages.get(page) ?? '', code);
      expect(text, `an element with id ${code}`).to.be.a('string');
      expect(text, code).to.match(new RegExp(`^${code} `));
      expect((text ?? '').length - code.length, `the explanation of ${code}`).to.be.above(15);
    }
    // The rate limit of test keys as the guide and the behaviour have it: one window for all of them.
    expect(textOfElement(pages.values().next().value ?? '', 'rate_limited')).to.contain('the test keys of all your platforms share one minute');
  });
});
