/**
 * Every language a campaign may target, as the campaign service accepts them (the choice
 * was a fixed list of 16): the codes come from the shared contract, the names from the browser
 * (Intl.DisplayNames), sorted by name, with "All languages" first.
 */
import { ALL_LANGUAGES, ISO_639_1 } from '../../../../packages/contracts/src/schemas/languages';

export interface LanguageChoice {
  code: string;
  label: string;
}

function namer(): (code: string) => string {
  try {
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    return (code) => names.of(code) ?? code;
  } catch {
    return (code) => code;
  }
}

export function languageChoices(): LanguageChoice[] {
  const name = namer();
  const languages = [...ISO_639_1].map((code) => ({ code, label: name(code) })).sort((a, b) => a.label.localeCompare(b.label, 'en'));
  return [{ code: ALL_LANGUAGES, label: 'All languages' }, ...languages];
}
