// The publishers guide (docs/publishers.md) as a page of the site (/guide): the build renders the markdown
// to HTML with marked, so the page and the document are one text, and the app imports the result as the
// module `virtual:publishers-guide` (decision 0029).
//   - Headings get GitHub's ids, so the guide's own `#sandbox-test-keys` links work on the page.
//   - Raw HTML in the markdown is dropped (the snippet markers are HTML comments): the page shows only
//     what markdown itself produces, and the gateway's page policy (no inline script or style) holds.
//   - Links into the repository (`../packages/...`, `snippets/...`) have no address on the site: they are
//     shown as their text, which names the path. In-page, site and absolute links are kept.
import fs from 'node:fs';
import path from 'node:path';
import { Marked, type Tokens } from 'marked';
import { gfmHeadingId } from 'marked-gfm-heading-id';
import type { Plugin } from 'vite';

export const GUIDE_MODULE = 'virtual:publishers-guide';
export const GUIDE_FILE = path.resolve(__dirname, '..', '..', '..', 'docs', 'publishers.md');

const RESOLVED_ID = `\0${GUIDE_MODULE}`;

/** Whether a link of the guide has an address a reader of the site can open. */
export function keepsLink(href: string): boolean {
  return href.startsWith('#') || (href.startsWith('/') && !href.startsWith('//')) || /^https?:\/\//i.test(href);
}

export function renderGuide(markdown: string): string {
  const marked = new Marked(gfmHeadingId(), {
    gfm: true,
    renderer: {
      html: () => '',
      link(token: Tokens.Link) {
        if (keepsLink(token.href)) return false; // marked's own rendering
        return this.parser.parseInline(token.tokens);
      },
    },
  });
  return marked.parse(markdown, { async: false });
}

export function publishersGuide(file = GUIDE_FILE): Plugin {
  return {
    name: 'pilot-publishers-guide',
    resolveId: (id) => (id === GUIDE_MODULE ? RESOLVED_ID : null),
    load(id) {
      if (id !== RESOLVED_ID) return null;
      this.addWatchFile(file);
      return `export const guideHtml = ${JSON.stringify(renderGuide(fs.readFileSync(file, 'utf8')))};\n`;
    },
  };
}
