/**
 * The pages the single-page app has (frontend/src/router.tsx): the web service answers them 200 with
 * index.html, and any other page address 404 with index.html, where the app shows its not-found page
 * (a missing page must not answer 200). Record ids are positive integers, as in API.md.
 */
const PAGES: readonly RegExp[] = [
  /^\/$/,
  /^\/tr$/,
  /^\/signin$/,
  /^\/sandbox$/, // the sandbox's page, where a test ad's click leads
  /^\/guide$/, // the publishers guide, docs/publishers.md rendered by the build
  /^\/guide\/errors$/, // every problem code, where each problem's type points (docs/publishers-errors.md)
  /^\/guide\/changelog$/, // the changelog and the compatibility policy (docs/publishers-changelog.md)
  /^\/workspace$/,
  /^\/workspace\/campaigns$/,
  /^\/workspace\/campaigns\/new$/,
  /^\/workspace\/campaigns\/[1-9][0-9]{0,15}$/,
  /^\/workspace\/publishers$/,
  /^\/workspace\/publishers\/[1-9][0-9]{0,15}$/,
  /^\/workspace\/audit$/,
  /^\/workspace\/placements$/,
  /^\/workspace\/review$/, // the administrator's review queue
];

/** Whether `requestPath` is a page of the app (one trailing slash allowed, as the router allows it). */
export function isKnownPage(requestPath: string): boolean {
  const path = requestPath.length > 1 && requestPath.endsWith('/') ? requestPath.slice(0, -1) : requestPath;
  return PAGES.some((page) => page.test(path));
}
