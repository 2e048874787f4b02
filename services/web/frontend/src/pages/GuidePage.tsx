/**
 * The publishers guide (docs/publishers.md) and its two companion pages, the error codes
 * (docs/publishers-errors.md) and the changelog (docs/publishers-changelog.md), rendered to HTML when the
 * site is built (frontend/publishers-guide.ts): each page says exactly what its document says. The HTML
 * comes from the repository's own markdown with raw HTML dropped, never from a visitor or the API.
 */
import { changelogHtml, errorsHtml, guideHtml } from 'virtual:publishers-guide';
import { useEffect, useMemo, useRef } from 'react';
import { withSiteOrigin } from '../guide-origin';
import { usePageTitle } from '../hooks/page-title';
import '../guide.css';

const PAGES = {
  guide: { title: 'Publishers guide', html: guideHtml },
  errors: { title: 'Error codes', html: errorsHtml },
  changelog: { title: 'Changelog and compatibility', html: changelogHtml },
} as const;

export type GuidePageName = keyof typeof PAGES;

/** A "Copy" button before every code block of the page, saying for a moment that it copied. */
function addCopyButtons(article: HTMLElement): () => void {
  const buttons: HTMLButtonElement[] = [];
  for (const block of Array.from(article.querySelectorAll('pre'))) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button button-secondary copy-code';
    button.textContent = 'Copy code';
    button.addEventListener('click', () => {
      void navigator.clipboard.writeText(block.textContent ?? '').then(
        () => (button.textContent = 'Copied'),
        () => (button.textContent = 'Copy failed: select the text'),
      );
      setTimeout(() => (button.textContent = 'Copy code'), 2000);
    });
    block.before(button);
    buttons.push(button);
  }
  return () => buttons.forEach((button) => button.remove());
}

export function GuidePage({ page = 'guide' }: { page?: GuidePageName }) {
  const { title } = PAGES[page];
  const html = useMemo(() => withSiteOrigin(PAGES[page].html, window.location.origin), [page]);
  const article = useRef<HTMLElement>(null);
  usePageTitle(title);
  useEffect(() => (article.current ? addCopyButtons(article.current) : undefined), [html]);
  // A problem's `type` links to /guide/errors#<code>: the page is loaded lazily, so scroll once it is there.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView();
  }, [page]);
  return <article ref={article} className="guide" data-testid={page === 'guide' ? 'publishers-guide' : `publishers-${page}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
