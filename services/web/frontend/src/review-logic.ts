/**
 * The review queue's rules that need no screen: its keyboard shortcuts, moving between items, approving
 * then activating in two honest steps, and an owner's record summed up by how each record ended.
 */
import { statusWord } from './status-words';

export type ShortcutAction = 'next' | 'previous' | 'approve' | 'reject' | 'select';

/** The shortcuts, as the page documents them. */
export const SHORTCUTS: ReadonlyArray<{ key: string; action: ShortcutAction; words: string }> = [
  { key: 'j', action: 'next', words: 'next item' },
  { key: 'k', action: 'previous', words: 'previous item' },
  { key: 'a', action: 'approve', words: 'approve the current item' },
  { key: 'r', action: 'reject', words: 'reject the current item (asks for a reason)' },
  { key: 'x', action: 'select', words: 'select or unselect the current item for a bulk decision' },
];

export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  /** where the key was pressed */
  target: { tagName?: string; isContentEditable?: boolean; type?: string } | null;
}

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', '']);

/** Whether a key pressed here is typing (a text field, a text area, a select, an editable region). */
export function isTyping(target: KeyPress['target']): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  const tag = (target.tagName ?? '').toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && TEXT_INPUT_TYPES.has((target.type ?? '').toLowerCase());
}

/** The shortcut a key press is; none inside a text field or with a modifier (the browser's own keys). */
export function shortcutOf(press: KeyPress): ShortcutAction | null {
  if (press.altKey || press.ctrlKey || press.metaKey || isTyping(press.target)) return null;
  return SHORTCUTS.find((shortcut) => shortcut.key === press.key)?.action ?? null;
}

/** The index after moving by `delta`, kept within the list; -1 for an empty list. */
export function moveIndex(index: number, delta: number, length: number): number {
  if (length <= 0) return -1;
  if (index < 0) return delta > 0 ? 0 : length - 1;
  return Math.min(length - 1, Math.max(0, index + delta));
}

export type TwoStepOutcome =
  | { approved: false; activated: false; error: unknown }
  | { approved: true; activated: false; error: unknown }
  | { approved: true; activated: true; error: null };

/**
 * Approve, then activate only once the approval is stored. A failed activation leaves the campaign
 * approved (it waits in "Approved, waiting for activation") and says so; nothing is rolled back.
 */
export async function approveThenActivate(call: (step: 'approve' | 'activate') => Promise<unknown>): Promise<TwoStepOutcome> {
  try {
    await call('approve');
  } catch (error) {
    return { approved: false, activated: false, error };
  }
  try {
    await call('activate');
  } catch (error) {
    return { approved: true, activated: false, error };
  }
  return { approved: true, activated: true, error: null };
}

/** "3 campaigns: Active 1 · Rejected 2"; "no campaigns" for none. `more`: the list has further pages. */
export function historyWords(noun: { one: string; many: string }, statuses: readonly string[], more: boolean): string {
  if (statuses.length === 0) return `no ${noun.many}`;
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  const parts = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([status, count]) => `${statusWord(status)} ${count}`);
  const total = `${statuses.length}${more ? '+' : ''} ${statuses.length === 1 && !more ? noun.one : noun.many}`;
  return `${total}: ${parts.join(' · ')}`;
}
