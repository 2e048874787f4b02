import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { unzipSync } from 'fflate';
import {
  CHANGELOG_FILE,
  CLIENT_MANIFEST,
  CLIENT_TARBALL,
  EXAMPLE_BOT_ARCHIVE,
  GO_ARCHIVE,
  ERRORS_FILE,
  GUIDE_FILE,
  keepsLink,
  packPythonClient,
  PYTHON_ARCHIVE,
  renderGuide,
  siteAddress,
  withClientFacts,
  withCodeSections,
} from '../frontend/publishers-guide';
import { isKnownPage } from '../src/http/site-routes';

const hrefs = (html: string): string[] => [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((match) => match[1] ?? '');
const ids = (html: string): Set<string> => new Set([...html.matchAll(/ id="([^"]*)"/g)].map((match) => match[1] ?? ''));

describe('the publishers guide as a page of the site (/guide)', () => {
  const markdown = fs.readFileSync(GUIDE_FILE, 'utf8');
  const html = renderGuide(markdown);

  it('opens with a table of contents of its sections, each leading to its heading', () => {
    const contents = /<nav class="toc"[^>]*>(.*?)<\/nav>/s.exec(html)?.[1] ?? '';
    const sections = [...markdown.matchAll(/^## (.+)$/gm)].length;
    expect(hrefs(contents)).to.have.length(sections);
    for (const href of hrefs(contents)) expect(ids(html).has(href.slice(1)), href).to.equal(true);
    expect(html.indexOf('<nav class="toc"')).to.be.above(html.indexOf('</h1>'));
  });

  it('is a page the web service serves', () => {
    expect(isKnownPage('/guide')).to.equal(true);
  });

  it('renders docs/publishers.md itself: its title, every section, the tables and the snippets as code', () => {
    const title = /^# (.+)$/m.exec(markdown)?.[1] ?? '';
    expect(html).to.contain(`<h1 id="publishers-from-a-key-to-your-first-sponsored-message">${title}</h1>`);
    for (const [, heading] of markdown.matchAll(/^## (.+)$/gm)) {
      expect(html, heading).to.match(new RegExp(`<h2 id="[a-z0-9-]+">${(heading ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/`([^`]+)`/g, '<code>$1</code>')}</h2>`));
    }
    expect(html).to.contain('<table>');
    expect(html).to.contain('<code>invalid_test_answer</code>');
    expect(html).to.contain('<code class="language-python">&quot;&quot;&quot;Serve one sponsored message from a Python bot');
    expect(html).to.contain('<code class="language-go">// Serve one sponsored message from a Go bot');
  });

  it('has no dead link on the site: in-page links land on a heading, other links are pages of the site', () => {
    const anchors = ids(html);
    const links = hrefs(html);
    expect(links, 'the guide links to its Sandbox section').to.include('#sandbox-test-keys');
    for (const href of links) {
      if (href.startsWith('#')) expect(anchors.has(href.slice(1)), href).to.equal(true);
      else {
        const snippet = /^\/downloads\/snippets\/([\w.-]+)$/.exec(href)?.[1];
        const served = snippet !== undefined && fs.existsSync(path.join(path.dirname(GUIDE_FILE), 'snippets', snippet));
        expect(isKnownPage(href) || served || [`/${CLIENT_TARBALL}`, `/${PYTHON_ARCHIVE}`, `/${GO_ARCHIVE}`, `/${EXAMPLE_BOT_ARCHIVE}`].includes(href) || /^https:\/\//.test(href), href).to.equal(true);
      }
    }
  });

  it('links a snippet to its download, and shows other repository paths as their text', () => {
    expect(html).to.contain('<a href="/downloads/snippets/serve_ad.py"><code>serve_ad.py</code></a>');
    expect(html).to.not.match(/href="\.\.?\//);
    expect(hrefs(renderGuide('See [`serve_ad.go`](snippets/serve_ad.go), [the bot](../examples/publisher-bot/README.md) and [the README](../clients/network/README.md).'))).to.deep.equal([
      '/downloads/snippets/serve_ad.go',
    ]);
    expect(siteAddress('snippets/serve_ad.go')).to.equal('/downloads/snippets/serve_ad.go');
    expect(siteAddress('snippets/missing.go')).to.equal(null);
    expect(keepsLink('#limits')).to.equal(true);
    expect(keepsLink('/sandbox')).to.equal(true);
    expect(keepsLink('https://core.telegram.org/bots/api')).to.equal(true);
    expect(keepsLink('//elsewhere.example/x')).to.equal(false);
    expect(keepsLink('snippets/serve_ad.go')).to.equal(false);
  });

  it('drops raw HTML (the snippet markers, or any tag someone writes into the markdown)', () => {
    expect(markdown).to.contain('<!-- snippet:');
    expect(html).to.not.contain('<!--');
    const rendered = renderGuide('Text <script>alert(1)</script> and <img src=x onerror=alert(1)>.\n\n<div style="color:red">block</div>\n');
    expect(rendered).to.not.match(/<script|<img|<div|style=/);
    expect(rendered).to.contain('Text');
  });
});

describe('the guide\'s companion pages: error codes (/guide/errors) and changelog (/guide/changelog)', () => {
  const pages = { '/guide/errors': ERRORS_FILE, '/guide/changelog': CHANGELOG_FILE };

  it('are pages the web service serves, whose links all land on the site or on one of their headings', () => {
    for (const [page, file] of Object.entries(pages)) {
      expect(isKnownPage(page), page).to.equal(true);
      const html = renderGuide(fs.readFileSync(file, 'utf8'));
      const anchors = ids(html);
      for (const href of hrefs(html)) {
        if (href.startsWith('#')) expect(anchors.has(href.slice(1)), `${page} ${href}`).to.equal(true);
        else {
          const [address = '', fragment] = href.split('#');
          expect(isKnownPage(address), `${page} ${href}`).to.equal(true);
          if (fragment !== undefined && address === '/guide') expect(ids(renderGuide(fs.readFileSync(GUIDE_FILE, 'utf8'))).has(fragment), `${page} ${href}`).to.equal(true);
        }
      }
    }
  });

  it('gives every code of the errors page a heading whose id is the code itself (the fragment of a problem\'s type)', () => {
    const markdown = fs.readFileSync(ERRORS_FILE, 'utf8');
    const html = renderGuide(markdown);
    const codes = [...markdown.matchAll(/^### ([a-z][a-z0-9_]*)$/gm)].map((match) => match[1] ?? '');
    expect(codes.length).to.be.greaterThan(40);
    for (const code of codes) expect(html, code).to.contain(`<h3 id="${code}">${code}</h3>`);
    expect(new Set(codes).size, 'each code once').to.equal(codes.length);
  });

  it('states the compatibility policy: what is added without notice and how removals are announced', () => {
    const html = renderGuide(fs.readFileSync(CHANGELOG_FILE, 'utf8'));
    expect(html).to.contain('<h2 id="compatibility-policy">Compatibility policy</h2>');
    expect(html).to.contain('<strong>Added without notice</strong>');
    expect(html).to.contain('<strong>Announced before they happen</strong>');
  });

  it('fills the guide\'s client version and checksum with what the build packed', () => {
    const markdown = fs.readFileSync(GUIDE_FILE, 'utf8');
    expect(markdown).to.contain('%NETWORK_CLIENT_VERSION%');
    expect(markdown).to.contain('%NETWORK_CLIENT_SHA256%');
    expect(markdown).to.contain('%PYTHON_CLIENT_VERSION%');
    expect(markdown).to.contain('%PYTHON_CLIENT_SHA256%');
    const filled = renderGuide(withClientFacts(markdown, { version: '9.8.7', sha256: 'ab'.repeat(32) }, { version: '6.5.4', sha256: 'cd'.repeat(32) }));
    expect(filled).to.contain('<code>6.5.4</code>');
    expect(filled).to.contain(`<code>${'cd'.repeat(32)}</code>`);
    expect(filled).to.contain(`<a href="/${PYTHON_ARCHIVE}">`);
    expect(filled).to.contain('<code>9.8.7</code>');
    expect(filled).to.contain(`<code>${'ab'.repeat(32)}</code>`);
    expect(filled).to.not.contain('%NETWORK_CLIENT_');
    expect(filled).to.not.contain('%PYTHON_CLIENT_');
    expect(filled).to.contain(`<a href="/${CLIENT_TARBALL}">`);
    expect(CLIENT_MANIFEST).to.equal('downloads/network-client.json');
  });
});

describe('the Python client\'s download (/downloads/pilot_network_client.zip)', () => {
  it('is a source archive of one top-level folder pip builds from, the same bytes every time', () => {
    const first = packPythonClient();
    const second = packPythonClient();
    expect(first.sha256).to.equal(second.sha256);
    expect(first.name).to.equal('pilot-network-client');
    const names = Object.keys(unzipSync(first.bytes));
    const top = `pilot_network_client-${first.version}/`;
    expect(names).to.include.members([`${top}pyproject.toml`, `${top}build_backend/pilot_build.py`, `${top}src/pilot_network_client/client.py`, `${top}src/pilot_network_client/py.typed`]);
    expect(names.every((name) => name.startsWith(top))).to.equal(true);
    expect(names.some((name) => name.includes('/tests/'))).to.equal(false);
  });
});

describe('the error codes page (/guide/errors) as served', () => {
  it('puts each code\'s explanation in one element whose id is the code', () => {
    const html = withCodeSections(renderGuide(fs.readFileSync(ERRORS_FILE, 'utf8')));
    const codes = [...fs.readFileSync(ERRORS_FILE, 'utf8').matchAll(/^### (\w+)$/gm)].map((match) => match[1] ?? '');
    expect(codes).to.include('missing_key');
    for (const code of codes) {
      const section = new RegExp(`<section id="${code}" class="error-code"><h3>${code}</h3>([\\s\\S]*?)</section>`).exec(html);
      expect(section?.[1]?.trim(), code).to.have.length.above(10);
    }
    expect(html).to.contain('<h2 id="workspace-api">');
  });
});
