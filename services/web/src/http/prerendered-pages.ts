/**
 * The guide's pages the web build writes as HTML with their text in the page (frontend/publishers-guide.ts)
 * and the web service serves at their addresses (guide-pages.ts): address -> file under the site's root.
 */
export const PRERENDERED_PAGES = {
  '/guide': 'prerendered/guide.html',
  '/guide/errors': 'prerendered/guide-errors.html',
  '/guide/changelog': 'prerendered/guide-changelog.html',
} as const;
