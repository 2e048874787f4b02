/**
 * The creative limits of SPEC.md, mirrored for hints while typing. The server decides: its 422 field
 * errors are shown next to the same fields.
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

export function lengthHint(value: string, limit: { min: number; max: number }): string | null {
  const length = lengthOf(value);
  if (length < limit.min) return 'Required.';
  if (length > limit.max) return `Too long: at most ${limit.max} characters.`;
  return null;
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
