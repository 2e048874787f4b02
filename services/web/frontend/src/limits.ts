/**
 * The creative limits of SPEC.md, mirrored for hints while typing, counted as the server counts
 * (@pilot/contracts text-length and plain-text; a unit test holds the two together). The server decides:
 * its 422 field errors are shown next to the same fields.
 */
export const LIMITS = {
  name: { min: 1, max: 100 },
  title: { min: 1, max: 100 },
  text: { min: 1, max: 700 },
  buttonText: { min: 1, max: 32 },
} as const;

const graphemes = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;

/** Characters as the campaign service counts them: what a person sees as one character (grapheme clusters). */
export function lengthOf(value: string): number {
  if (!graphemes) return Array.from(value).length;
  let count = 0;
  for (const _segment of graphemes.segment(value)) count += 1;
  return count;
}

/** UTF-16 code units the server allows per character of a limit: a character may be built of several. */
export const UTF16_UNITS_PER_CHARACTER = 8;

/** The text-direction controls the server refuses in creative texts (a right-to-left override reverses a label). */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

/** Over the limit in characters, or in encoded length (few characters made of many combining marks). */
export function overLimit(value: string, max: number): boolean {
  return lengthOf(value) > max || value.length > max * UTF16_UNITS_PER_CHARACTER;
}

export interface Counter {
  text: string;
  over: boolean;
}

/** "80 / 100", and what is over when the text is: the characters, or its encoded size. */
export function counterOf(value: string, max: number): Counter {
  const length = lengthOf(value);
  if (length > max) return { text: `${length} / ${max}: ${length - max} over the limit`, over: true };
  if (value.length > max * UTF16_UNITS_PER_CHARACTER) return { text: `${length} / ${max}, but too long once encoded`, over: true };
  return { text: `${length} / ${max}`, over: false };
}

export function lengthHint(value: string, limit: { min: number; max: number }): string | null {
  const length = lengthOf(value);
  if (length < limit.min) return 'Required.';
  if (length > limit.max) return `Too long: at most ${limit.max} characters.`;
  if (value.length > limit.max * UTF16_UNITS_PER_CHARACTER) {
    return `Too long once encoded: some characters here are built of many marks. At most ${limit.max * UTF16_UNITS_PER_CHARACTER} code units.`;
  }
  return null;
}

/** lengthHint, and a creative text's refusal of text-direction controls. */
export function creativeTextHint(value: string, limit: { min: number; max: number }): string | null {
  if (BIDI_CONTROLS.test(value)) return 'Remove the invisible text-direction characters (such as a right-to-left override): they can make the text read differently.';
  return lengthHint(value, limit);
}

/** An https URL without user name or password, else a hint. */
export function httpsUrlHint(value: string, required: boolean): string | null {
  if (!value) return required ? 'Required.' : null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'Enter a full address starting with https://';
  }
  if (parsed.protocol !== 'https:') return 'The address must start with https://';
  if (parsed.username || parsed.password) return 'The address must not contain a user name or password.';
  return null;
}

/** Only https links are ever put in an href or src, whatever the data says. */
export function safeHttpsUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'https:' && !parsed.username && !parsed.password ? parsed.href : null;
  } catch {
    return null;
  }
}
