/**
 * Text limits of SPEC.md count user-perceived characters (extended grapheme clusters): an emoji with
 * modifiers is one. A cluster has no upper size, though: "a" followed by 20,000 combining marks is one
 * character. So a text within its character limit must also stay within a cap on its UTF-16 length
 * (what the messaging platform and JavaScript count), generous enough for any real text.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * UTF-16 code units allowed per character of a limit. A flag is 4 units, a three-person family emoji 8,
 * so a text of such emoji at its character limit still passes; 20,000 combining marks do not.
 */
export const UTF16_UNITS_PER_CHARACTER = 8;

/** The number of user-perceived characters (extended grapheme clusters). */
export function graphemeLength(value: string): number {
  let count = 0;
  for (const _segment of segmenter.segment(value)) count += 1;
  return count;
}

/** The first `maxCharacters` user-perceived characters of a text (all of it when it is no longer). */
export function graphemePrefix(value: string, maxCharacters: number): string {
  let kept = '';
  let count = 0;
  for (const { segment } of segmenter.segment(value)) {
    if (count === maxCharacters) break;
    kept += segment;
    count += 1;
  }
  return kept;
}

/**
 * Whether a text is over a limit of `maxCharacters`: `too_long` counted in characters, `too_long_encoded`
 * when few characters are built of too many code units; null when within it.
 */
export function lengthExcess(value: string, maxCharacters: number): 'too_long' | 'too_long_encoded' | null {
  if (graphemeLength(value) > maxCharacters) return 'too_long';
  return value.length > maxCharacters * UTF16_UNITS_PER_CHARACTER ? 'too_long_encoded' : null;
}

/** The message of a length excess, naming the field and the limit. */
export function lengthExcessMessage(field: string, excess: 'too_long' | 'too_long_encoded', maxCharacters: number): string {
  return excess === 'too_long'
    ? `${field} must have at most ${maxCharacters} characters`
    : `${field} is too long once encoded: at most ${maxCharacters * UTF16_UNITS_PER_CHARACTER} UTF-16 code units (combining marks and emoji count several)`;
}
