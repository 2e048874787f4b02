/**
 * The rule of every free text of the API (names, titles, bodies, button labels, reasons): 1 to `max`
 * user-perceived characters (text-length), plain text without control characters, not only spaces.
 * The first failing check gives the field's one code.
 */
import { lengthExcess, lengthExcessMessage } from './text-length';

export interface TextRule {
  max: number;
  /** A multi-line text (a body, a reason) may hold line breaks and tabs. */
  multiLine?: boolean;
  /** A creative text (shown to end users) also refuses bidirectional controls, which can disguise what it says. */
  creative?: boolean;
}

export interface RuleProblem {
  code: string;
  message: string;
}

// C0 and C1 controls (newline and tab included), DEL, line/paragraph separators and unpaired surrogates.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// The same, but a multi-line text may hold line breaks and tabs.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Bidirectional embedding, override and isolate controls and the directional marks (U+202A–U+202E,
 * U+2066–U+2069, U+200E, U+200F, U+061C): a right-to-left override makes "Buy now" read backwards.
 */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

/** Why a string breaks the text rule (named by `field` in the message), or null when it keeps it. */
export function textProblem(field: string, value: string, rule: TextRule): RuleProblem | null {
  if (value.length === 0) return { code: 'too_short', message: `${field} must have at least 1 character` };
  const excess = lengthExcess(value, rule.max);
  if (excess) return { code: excess, message: lengthExcessMessage(field, excess, rule.max) };
  if ((rule.multiLine ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).test(value)) {
    return { code: 'invalid_characters', message: `${field} must be plain text without control characters` };
  }
  if (rule.creative && BIDI_CONTROLS.test(value)) {
    return { code: 'bidi_control_characters', message: `${field} must not contain text-direction control characters` };
  }
  if (value.trim().length === 0) return { code: 'blank', message: `${field} must not be only spaces` };
  return null;
}
