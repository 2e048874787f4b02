import { useEffect } from 'react';

export const SITE_NAME = 'Publisher pilot';

/** "<page> · Publisher pilot" as the tab's title while the page is shown. */
export function pageTitle(page: string | null): string {
  return page ? `${page} · ${SITE_NAME}` : SITE_NAME;
}

export function usePageTitle(page: string | null): void {
  useEffect(() => {
    document.title = pageTitle(page);
  }, [page]);
}
