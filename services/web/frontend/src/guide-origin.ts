/** The browser and the web service put the site's origin into the guide's pages by one rule. */
export { withSiteOrigin } from '../../src/http/guide-origin';
