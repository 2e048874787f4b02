/**
 * The publishers guide (docs/publishers.md), rendered to HTML when the site is built
 * (frontend/publishers-guide.ts): the page says exactly what the document says. The HTML comes from the
 * repository's own markdown with raw HTML dropped, never from a visitor or the API.
 */
import { guideHtml } from 'virtual:publishers-guide';
import { usePageTitle } from '../hooks/page-title';
import '../guide.css';

export function GuidePage() {
  usePageTitle('Publishers guide');
  return <article className="guide" data-testid="publishers-guide" dangerouslySetInnerHTML={{ __html: guideHtml }} />;
}
