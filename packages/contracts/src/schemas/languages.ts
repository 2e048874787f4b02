/** ISO 639-1 two-letter language codes (the 183 current ones). A campaign may also target `all`. */
export const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el ' +
    'en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it ' +
    'iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt ' +
    'my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl ' +
    'sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo ' +
    'za zh zu'
  ).split(' '),
);

export const ALL_LANGUAGES = 'all';

/** What a campaign may target: one language, or `all`. */
export const CAMPAIGN_LANGUAGES: readonly string[] = [...ISO_639_1, ALL_LANGUAGES];

/**
 * The network's ad request reads its `language` as an ISO 639-1 code or a BCP 47 tag whose primary subtag
 * is one (API.md); this is the longest tag it reads (tags in use are far shorter).
 */
export const MAX_LANGUAGE_TAG_LENGTH = 35;

const bothCases = (letters: string): string => [...letters].map((c) => `${c.toUpperCase()}${c}`).join('');

/**
 * The ad request's accepted languages as a regular expression (ECMAScript, no flags, for the network's
 * OpenAPI document): a primary subtag that is one of ISO_639_1 in any case, then the subtags of a Unicode
 * BCP 47 locale identifier (script, region, variants, extensions, private use), the structure
 * Intl.getCanonicalLocales checks. What a pattern cannot say (a variant or extension repeated) is left to
 * the server.
 */
export function languagePattern(): string {
  const byFirst = new Map<string, string>();
  for (const code of [...ISO_639_1].sort()) byFirst.set(code[0]!, (byFirst.get(code[0]!) ?? '') + code[1]!);
  const primary = [...byFirst].map(([first, seconds]) => `[${bothCases(first)}][${bothCases(seconds)}]`).join('|');
  const alnum = 'A-Za-z0-9';
  return (
    `^(?:${primary})` +
    '(?:-[A-Za-z]{4})?' + // script
    '(?:-(?:[A-Za-z]{2}|[0-9]{3}))?' + // region
    `(?:-(?:[${alnum}]{5,8}|[0-9][${alnum}]{3}))*` + // variants
    `(?:-[0-9A-WYZa-wyz](?:-[${alnum}]{2,8})+)*` + // extensions
    `(?:-[Xx](?:-[${alnum}]{1,8})+)?$` // private use
  );
}
