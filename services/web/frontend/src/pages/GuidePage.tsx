/**
 * The publishers guide (docs/publishers.md) and its two companion pages, the error codes
 * (docs/publishers-errors.md) and the changelog (docs/publishers-changelog.md), rendered to HTML when the
 * site is built (frontend/publishers-guide.ts): each page says exactly what its document says. The HTML
 * comes from the repository's own markdown with raw HTML dropped, never from a visitor or the API.
 */
import { changelogHtml, errorsHtml, guideHtml } from 'virtual:publishers-guide';
import { useEffect } from 'react';
import { usePageTitle } from '../hooks/page-title';
import '../guide.css';

const PAGES = {
  guide: { title: 'Publishers guide', html: guideHtml },
  errors: { title: 'Error codes', html: errorsHtml },
  changelog: { title: 'Changelog and compatibility', html: changelogHtml },
} as const;

export type GuidePageName = keyof typeof PAGES;

export function GuidePage({ page = 'guide' }: { page?: GuidePageName }) {
  const { title, html } = PAGES[page];
  usePageTitle(title);
  // A problem's `type` links to /guide/errors#<code>: the page is loaded lazily, so scroll once it is there.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView();
  }, [page]);
  return <article className="guide" data-testid={page === 'guide' ? 'publishers-guide' : `publishers-${page}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
