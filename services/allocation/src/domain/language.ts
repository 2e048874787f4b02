/**
 * The `language` query parameter of the ad request (API.md): an ISO 639-1 code, or a BCP 47 tag whose
 * primary subtag is one (`en-US`, `pt-br`: the messaging platform hands bots such tags), in any case;
 * selection uses the primary subtag, lowercased. Absent means `en`. Anything else (`all`, a campaign
 * targeting value rather than a language, `english`, `zz`, the empty value) is refused. The codes, the
 * longest tag and the pattern the OpenAPI document states are the contracts' (schemas/languages.ts).
 */
import { ISO_639_1, MAX_LANGUAGE_TAG_LENGTH } from '@pilot/contracts';

export const DEFAULT_LANGUAGE = 'en';

function isWellFormedTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false; // RangeError: not a structurally valid BCP 47 tag
  }
}

/** The language to select on (a lowercase ISO 639-1 code), or null when the value is not acceptable. */
export function parseLanguage(raw: unknown): string | null {
  if (raw === undefined) return DEFAULT_LANGUAGE;
  if (typeof raw !== 'string' || raw.length > MAX_LANGUAGE_TAG_LENGTH) return null; // repeated parameter, nested form
  const primary = raw.split('-')[0]!.toLowerCase();
  if (!ISO_639_1.has(primary)) return null;
  return raw.length === 2 || isWellFormedTag(raw) ? primary : null;
}
