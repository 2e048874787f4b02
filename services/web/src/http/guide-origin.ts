/**
 * The guide's pages write the origin as `https://pilot.example` (in examples) or `{base_url}` (in prose);
 * on the site both show the site's origin, so a copied command works as it is.
 */
const PLACEHOLDERS = ['https://pilot.example', '{base_url}'];

export function withSiteOrigin(html: string, origin: string): string {
  return PLACEHOLDERS.reduce((text, placeholder) => text.replaceAll(placeholder, origin), html);
}
