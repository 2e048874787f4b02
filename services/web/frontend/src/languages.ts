/**
 * Every language a campaign may target, as the campaign service accepts them (the choice
 * was a fixed list of 16): the codes come from the shared contract, the names from the browser
 * (Intl.DisplayNames, or the names kept here where it has none), sorted by name, with "All languages" first.
 */
import { ALL_LANGUAGES, ISO_639_1 } from '../../../../packages/contracts/src/schemas/languages';
import { LANGUAGE_NAMES } from './language-names';

export interface LanguageChoice {
  code: string;
  label: string;
}

function namer(): (code: string) => string {
  try {
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    return (code) => {
      const name = names.of(code);
      return name && name !== code ? name : (LANGUAGE_NAMES[code] ?? code);
    };
  } catch {
    return (code) => LANGUAGE_NAMES[code] ?? code;
  }
}

let named: ((code: string) => string) | null = null;

/** "Arabic (ar)", "All languages" for `all`: a campaign's language in words, with its code. */
export function languageWords(code: string): string {
  if (code === ALL_LANGUAGES) return 'All languages';
  named ??= namer();
  const name = named(code);
  return name === code ? code : `${name} (${code})`;
}

export function languageChoices(): LanguageChoice[] {
  const name = namer();
  const languages = [...ISO_639_1].map((code) => ({ code, label: name(code) })).sort((a, b) => a.label.localeCompare(b.label, 'en'));
  return [{ code: ALL_LANGUAGES, label: 'All languages' }, ...languages];
}
