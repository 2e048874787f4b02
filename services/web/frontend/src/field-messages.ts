/**
 * The services' 422 field errors in the words of the form: shown next to the field, so
 * the internal field name ("destinationUrl must ...") is left out and the rest reads as a sentence.
 */
import type { FieldError } from './api';

const BY_CODE: Record<string, string> = {
  required: 'Required.',
  blank: 'Enter some text, not only spaces.',
  https_required: 'The address must start with https://',
  unknown_field: 'This field is not accepted here.',
  bidi_control_characters: 'Remove the invisible text-direction characters (such as a right-to-left override).',
  ends_before_start: 'Must be after the start.',
};

export function fieldMessage(error: FieldError): string {
  if (error.code === 'too_short' && /at least 1\b/.test(error.message)) return 'Enter at least one visible character.';
  const known = BY_CODE[error.code];
  if (known) return known;
  let text = error.message.trim();
  if (text.startsWith(`${error.field} `)) text = text.slice(error.field.length + 1);
  text = text.replace(/character\(s\)/g, 'characters');
  if (!text) return 'This value is not accepted.';
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
