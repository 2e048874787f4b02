/** What a type-ahead picker offers for the text typed: the choices whose words all appear (case and accents ignored). */
export interface Choice {
  value: string;
  label: string;
}

function fold(value: string): string {
  return value.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Choices matching every word typed, those starting with the text first; all of them for no text. */
export function matchingChoices(choices: readonly Choice[], text: string): Choice[] {
  const words = fold(text).split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...choices];
  const found = choices.filter((choice) => {
    const label = fold(`${choice.label} ${choice.value}`);
    return words.every((word) => label.includes(word));
  });
  const start = fold(text.trim());
  return [...found.filter((choice) => fold(choice.label).startsWith(start)), ...found.filter((choice) => !fold(choice.label).startsWith(start))];
}
