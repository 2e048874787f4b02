// The publishers guide (docs/publishers.md) as pages of the site: /guide, its error codes (/guide/errors,
// docs/publishers-errors.md: every problem's `type` points there) and its changelog (/guide/changelog,
// docs/publishers-changelog.md). The build renders the markdown to HTML with marked, so the pages and the
// documents are one text, and the app imports the result as the module `virtual:publishers-guide`.
//   - Headings get GitHub's ids, so the guide's own `#sandbox-test-keys` links work on the page.
//   - Raw HTML in the markdown is dropped (the snippet markers are HTML comments): the page shows only
//     what markdown itself produces, and the gateway's page policy (no inline script or style) holds.
//   - A link to a snippet (snippets/<file>) becomes its download (/downloads/snippets/<file>). Other
//     repository paths have no address on the site: they are shown as their text (and a test keeps the served
//     pages free of them). In-page, site and absolute links are kept.
//   - A page with three or more sections opens with a table of contents of its sections.
//   - The build packs the TypeScript client (clients/network, scripts/pack.mjs) into the site at
//     /downloads/network-client.tgz, with /downloads/network-client.json ({name, version, sha256}), and
//     the Python client (clients/python) as a source archive pip installs, /downloads/pilot_network_client.zip,
//     with /downloads/pilot_network_client.json; the Go module (clients/go) as /downloads/network-client-go.zip
//     and the example bot (examples/publisher-bot, the client's tarball inside) as /downloads/example-bot.tgz; the guide's %NETWORK_CLIENT_VERSION%,
//     %NETWORK_CLIENT_SHA256%, %PYTHON_CLIENT_VERSION% and %PYTHON_CLIENT_SHA256% show their versions and checksums.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { zipSync } from 'fflate';
import { Marked, type Tokens } from 'marked';
import { getHeadingList, gfmHeadingId } from 'marked-gfm-heading-id';
import type { Plugin, Rollup } from 'vite';
import { PRERENDERED_PAGES } from '../src/http/prerendered-pages';

type OutputBundle = Rollup.OutputBundle;
type OutputAsset = Rollup.OutputAsset;
type OutputChunk = Rollup.OutputChunk;

export const GUIDE_MODULE = 'virtual:publishers-guide';
const DOCS = path.resolve(__dirname, '..', '..', '..', 'docs');
export const GUIDE_FILE = path.join(DOCS, 'publishers.md');
export const ERRORS_FILE = path.join(DOCS, 'publishers-errors.md');
export const CHANGELOG_FILE = path.join(DOCS, 'publishers-changelog.md');
const CLIENT_FOLDER = path.resolve(__dirname, '..', '..', '..', 'clients', 'network');

/** Where the site serves the client's tarball and what it says of it (API.md). */
export const CLIENT_TARBALL = 'downloads/network-client.tgz';
export const CLIENT_MANIFEST = 'downloads/network-client.json';

export interface PackedClient {
  name: string;
  version: string;
  sha256: string;
  bytes: Buffer;
}

/** The client as publishers download it, packed by its own script from a staged copy. */
export function packNetworkClient(clientFolder = CLIENT_FOLDER): PackedClient {
  const destination = fs.mkdtempSync(path.join(os.tmpdir(), 'pilot-site-client-'));
  try {
    const tarball = execFileSync(process.execPath, [path.join(clientFolder, 'scripts', 'pack.mjs'), destination], { encoding: 'utf8' }).trim();
    const bytes = fs.readFileSync(tarball);
    const manifest = JSON.parse(fs.readFileSync(path.join(clientFolder, 'package.json'), 'utf8')) as { name: string; version: string };
    return { name: manifest.name, version: manifest.version, sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
  } finally {
    fs.rmSync(destination, { recursive: true, force: true });
  }
}

const PYTHON_CLIENT_FOLDER = path.resolve(__dirname, '..', '..', '..', 'clients', 'python');
export const PYTHON_ARCHIVE = 'downloads/pilot_network_client.zip';
export const PYTHON_MANIFEST = 'downloads/pilot_network_client.json';
/** What pip needs to build the Python client: its project file, its standard-library backend and its sources. */
const PYTHON_SOURCES = ['pyproject.toml', 'README.md', 'LICENSE', 'build_backend', 'src'];
/** One time stamp for every entry, so the same sources give the same archive and checksum. */
const FIXED_MTIME = new Date('2026-01-01T00:00:00Z');

/** The Python client as a source archive (sdist) in a zip, whose one top-level folder pip builds from. */
export function packPythonClient(folder = PYTHON_CLIENT_FOLDER): PackedClient {
  const project = fs.readFileSync(path.join(folder, 'pyproject.toml'), 'utf8');
  const field = (name: string) => new RegExp(`^${name}\\s*=\\s*"([^"]+)"`, 'm').exec(project)?.[1];
  const name = field('name');
  const version = field('version');
  if (!name || !version) throw new Error(`${folder}/pyproject.toml names no project name or version`);
  const top = `${name.replace(/[-.]+/g, '_')}-${version}`;
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  const add = (relative: string) => {
    const absolute = path.join(folder, relative);
    if (fs.statSync(absolute).isDirectory()) {
      for (const child of fs.readdirSync(absolute).sort()) if (child !== '__pycache__') add(path.posix.join(relative, child));
    } else if (!relative.endsWith('.pyc')) {
      entries[`${top}/${relative}`] = [fs.readFileSync(absolute), { mtime: FIXED_MTIME }];
    }
  };
  for (const source of PYTHON_SOURCES) add(source);
  const bytes = Buffer.from(zipSync(entries, { level: 9 }));
  return { name, version, sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
}

const GO_MODULE_FOLDER = path.resolve(__dirname, '..', '..', '..', 'clients', 'go');
export const GO_ARCHIVE = 'downloads/network-client-go.zip';
/** The top folder of the Go archive: the folder a `replace` directive names. */
export const GO_ARCHIVE_FOLDER = 'networkclient';

/** The Go module as a zip of one folder: its go.mod, its sources, its embedded schemas and its README (no tests). */
export function packGoModule(folder = GO_MODULE_FOLDER): PackedClient {
  const goMod = fs.readFileSync(path.join(folder, 'go.mod'), 'utf8');
  const name = /^module\s+(\S+)/m.exec(goMod)?.[1];
  const version = /^const Version = "([^"]+)"/m.exec(fs.readFileSync(path.join(folder, 'client.go'), 'utf8'))?.[1];
  if (!name || !version) throw new Error(`${folder}: go.mod names no module or client.go no Version`);
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  for (const file of fs.readdirSync(folder).sort()) {
    if (file === 'go.mod' || file === 'README.md' || file === 'LICENSE' || file.endsWith('.json') || (file.endsWith('.go') && !file.endsWith('_test.go'))) {
      entries[`${GO_ARCHIVE_FOLDER}/${file}`] = [fs.readFileSync(path.join(folder, file)), { mtime: FIXED_MTIME }];
    }
  }
  const bytes = Buffer.from(zipSync(entries, { level: 9 }));
  return { name, version, sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
}

const EXAMPLE_BOT_FOLDER = path.resolve(__dirname, '..', '..', '..', 'examples', 'publisher-bot');
export const EXAMPLE_BOT_ARCHIVE = 'downloads/example-bot.tgz';
/** What a publisher needs of the example bot; the client's tarball is added at vendor/, where package.json expects it. */
const EXAMPLE_BOT_SOURCES = ['.gitignore', 'README.md', 'package.json', 'tsconfig.json', 'scripts', 'src'];
const EXAMPLE_BOT_CLIENT = 'vendor/pilot-network-client.tgz';

/**
 * The example bot as a gzipped tar of one folder, `publisher-bot/`, with the packed client inside, so
 * `npm install` works as it unpacks. Written by the system's tar in a fixed order, owner and time, and gzipped
 * without a time stamp, so the same sources give the same archive.
 */
export function packExampleBot(client: Pick<PackedClient, 'bytes'>, folder = EXAMPLE_BOT_FOLDER): Buffer {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'pilot-site-example-'));
  try {
    const top = path.join(stage, 'publisher-bot');
    for (const source of EXAMPLE_BOT_SOURCES) fs.cpSync(path.join(folder, source), path.join(top, source), { recursive: true });
    fs.mkdirSync(path.join(top, path.dirname(EXAMPLE_BOT_CLIENT)), { recursive: true });
    fs.writeFileSync(path.join(top, EXAMPLE_BOT_CLIENT), client.bytes);
    const tar = execFileSync(
      'tar',
      ['--create', '--sort=name', `--mtime=${FIXED_MTIME.toISOString()}`, '--owner=0', '--group=0', '--numeric-owner', '--file=-', 'publisher-bot'],
      { cwd: stage, maxBuffer: 64 * 1024 * 1024 },
    );
    return zlib.gzipSync(tar, { level: 9 });
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** The guide's placeholders for the downloadable clients, filled with what the build packed. */
export function withClientFacts(
  markdown: string,
  client: Pick<PackedClient, 'version' | 'sha256'>,
  python: Pick<PackedClient, 'version' | 'sha256'> = client,
): string {
  return markdown
    .replaceAll('%NETWORK_CLIENT_VERSION%', client.version)
    .replaceAll('%NETWORK_CLIENT_SHA256%', client.sha256)
    .replaceAll('%PYTHON_CLIENT_VERSION%', python.version)
    .replaceAll('%PYTHON_CLIENT_SHA256%', python.sha256);
}

const RESOLVED_ID = `\0${GUIDE_MODULE}`;

type GuidePageName = 'guide' | 'errors' | 'changelog';

/** The guide's pages as the web service serves them (services/web/src/http/guide-pages.ts reads the same files). */
export const GUIDE_PAGES: ReadonlyArray<{ name: GuidePageName; file: string; title: string }> = [
  { name: 'guide', file: PRERENDERED_PAGES['/guide'], title: 'Publishers guide' },
  { name: 'errors', file: PRERENDERED_PAGES['/guide/errors'], title: 'Error codes' },
  { name: 'changelog', file: PRERENDERED_PAGES['/guide/changelog'], title: 'Changelog and compatibility' },
];

/** The stylesheets of the app's guide page (its lazily loaded chunk), which the served page links itself. */
function guideStylesheets(bundle: OutputBundle): string[] {
  const chunk = Object.values(bundle).find(
    (item): item is OutputChunk => item.type === 'chunk' && /[\\/]GuidePage\.tsx$/.test(item.facadeModuleId ?? ''),
  );
  const css = chunk?.viteMetadata?.importedCss;
  if (!css || css.size === 0) throw new Error('the build has no stylesheet of the guide page (pages/GuidePage.tsx imports guide.css)');
  return [...css];
}

/**
 * index.html with the page's document inside the app's root element, laid out as the app's public pages
 * are (PublicLayout.tsx), so the text is there as served; the app renders the same page over it when it runs.
 */
export function prerenderedPage(bundle: OutputBundle, page: (typeof GUIDE_PAGES)[number], html: string): string {
  const index = bundle['index.html'] as OutputAsset | undefined;
  if (!index) throw new Error('the build has no index.html to lay the guide pages out in');
  const shell = String(index.source);
  const links = guideStylesheets(bundle).map((file) => `<link rel="stylesheet" crossorigin href="/${file}">`).join('');
  const body = [
    '<div class="page">',
    '<a class="skip-link" href="#main">Skip to content</a>',
    '<header class="site-header"><a class="brand" href="/">Publisher pilot</a>',
    '<nav aria-label="Site"><a href="/">Home</a><a href="/guide">Publishers guide</a><a href="/tr" lang="tr">Türkçe</a><a href="/signin">Sign in</a></nav></header>',
    // No test id: the app's own page carries it, so whoever waits for it waits for the app's take-over.
    `<main id="main" tabindex="-1"><article class="guide" data-prerendered="${page.name}">${html}</article></main>`,
    '</div>',
  ].join('');
  const out = shell
    .replace('<div id="root"></div>', () => `<div id="root">${body}</div>`)
    .replace(/<noscript>[\s\S]*?<\/noscript>\s*/, '')
    .replace(/<title>[^<]*<\/title>/, `<title>${page.title} · Publisher pilot</title>`)
    .replace('</head>', () => `${links}</head>`);
  if (!out.includes(`data-prerendered="${page.name}"`)) throw new Error('index.html has no empty <div id="root"></div> to fill');
  return out;
}

const SNIPPETS = path.join(DOCS, 'snippets');
export const SNIPPET_FOLDER = 'downloads/snippets';

/** The site's address of a repository link of the guide, or null when the site serves nothing of it. */
export function siteAddress(href: string): string | null {
  const snippet = /^snippets\/([\w.-]+)$/.exec(href)?.[1];
  if (snippet && fs.existsSync(path.join(SNIPPETS, snippet))) return `/${SNIPPET_FOLDER}/${snippet}`;
  return null;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A list of the page's sections (its h2 headings) after its title, when it has three or more. */
function withContents(html: string, sections: Array<{ id: string; text: string }>): string {
  if (sections.length < 3) return html;
  const items = sections.map((section) => `<li><a href="#${section.id}">${section.text}</a></li>`).join('');
  const nav = `<nav class="toc" aria-labelledby="contents"><h2 id="contents">Contents</h2><ol>${items}</ol></nav>`;
  const titleEnd = html.indexOf('</h1>');
  return titleEnd < 0 ? nav + html : `${html.slice(0, titleEnd + 5)}\n${nav}${html.slice(titleEnd + 5)}`;
}

/** Whether a link of the guide has an address a reader of the site can open. */
export function keepsLink(href: string): boolean {
  return href.startsWith('#') || (href.startsWith('/') && !href.startsWith('//')) || /^https?:\/\//i.test(href);
}

/**
 * Each `###` section of the error codes page as one element whose id is the code, so the page a problem's
 * `type` names (`/guide/errors#<code>`) holds the code's explanation in the element with that id.
 */
export function withCodeSections(html: string): string {
  return html.replace(
    /<h3 id="([\w-]+)">([\s\S]*?)<\/h3>([\s\S]*?)(?=<h[23][ >]|$)/g,
    (_match, id: string, heading: string, body: string) => `<section id="${id}" class="error-code"><h3>${heading}</h3>${body.trimEnd()}</section>\n`,
  );
}

export function renderGuide(markdown: string): string {
  const marked = new Marked(gfmHeadingId(), {
    gfm: true,
    renderer: {
      html: () => '',
      link(token: Tokens.Link) {
        if (keepsLink(token.href)) return false; // marked's own rendering
        const address = siteAddress(token.href);
        const text = this.parser.parseInline(token.tokens);
        return address ? `<a href="${escapeHtml(address)}">${text}</a>` : text;
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  const headings = getHeadingList().filter((heading) => heading.level === 2);
  return withContents(html, headings.map((heading) => ({ id: heading.id, text: heading.text })));
}

export function publishersGuide(files = { guide: GUIDE_FILE, errors: ERRORS_FILE, changelog: CHANGELOG_FILE }): Plugin {
  let client: PackedClient | undefined;
  let python: PackedClient | undefined;
  const packed = (): PackedClient => (client ??= packNetworkClient());
  const pythonPacked = (): PackedClient => (python ??= packPythonClient());
  const rendered = (name: GuidePageName): string => {
    const html = renderGuide(withClientFacts(fs.readFileSync(files[name], 'utf8'), packed(), pythonPacked()));
    return name === 'errors' ? withCodeSections(html) : html;
  };
  return {
    name: 'pilot-publishers-guide',
    resolveId: (id) => (id === GUIDE_MODULE ? RESOLVED_ID : null),
    load(id) {
      if (id !== RESOLVED_ID) return null;
      for (const file of Object.values(files)) this.addWatchFile(file);
      return [
        `export const guideHtml = ${JSON.stringify(rendered('guide'))};`,
        `export const errorsHtml = ${JSON.stringify(rendered('errors'))};`,
        `export const changelogHtml = ${JSON.stringify(rendered('changelog'))};`,
        '',
      ].join('\n');
    },
    generateBundle: {
      // After Vite's own step has put index.html into the bundle.
      order: 'post',
      handler(_options, bundle) {
        for (const page of GUIDE_PAGES) {
          this.emitFile({ type: 'asset', fileName: page.file, source: prerenderedPage(bundle, page, rendered(page.name)) });
        }
        const { name, version, sha256, bytes } = packed();
        this.emitFile({ type: 'asset', fileName: CLIENT_TARBALL, source: bytes });
        this.emitFile({ type: 'asset', fileName: CLIENT_MANIFEST, source: `${JSON.stringify({ name, version, sha256, url: `/${CLIENT_TARBALL}` })}\n` });
        const py = pythonPacked();
        this.emitFile({ type: 'asset', fileName: PYTHON_ARCHIVE, source: py.bytes });
        // Files only: running the Python snippets leaves a __pycache__ folder beside them.
        for (const snippet of fs.readdirSync(SNIPPETS, { withFileTypes: true }).filter((entry) => entry.isFile())) {
          this.emitFile({ type: 'asset', fileName: `${SNIPPET_FOLDER}/${snippet.name}`, source: fs.readFileSync(path.join(SNIPPETS, snippet.name)) });
        }
        this.emitFile({ type: 'asset', fileName: GO_ARCHIVE, source: packGoModule().bytes });
        this.emitFile({ type: 'asset', fileName: EXAMPLE_BOT_ARCHIVE, source: packExampleBot(packed()) });
        this.emitFile({ type: 'asset', fileName: PYTHON_MANIFEST, source: `${JSON.stringify({ name: py.name, version: py.version, sha256: py.sha256, url: `/${PYTHON_ARCHIVE}` })}\n` });
      },
    },
  };
}
