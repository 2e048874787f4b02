/**
 * The workspace address a signed-out person asked for, kept through sign-in: the layout
 * sends them to /signin with it in the router state and in sessionStorage (so a reload of the sign-in page,
 * or a new code, keeps it), and the sign-in page opens it once the session exists.
 */
const KEY = 'pilot.after-signin';
const DEFAULT = '/workspace';

/** Only a path inside the workspace of this site: never another origin, never a protocol-relative //host. */
export function safeWorkspacePath(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (!/^\/workspace(?:[/?#]|$)/.test(value)) return null;
  if (value.includes('\\') || value.startsWith('//')) return null;
  return value;
}

export function rememberDeepLink(path: string): void {
  const safe = safeWorkspacePath(path);
  try {
    if (safe && safe !== DEFAULT) sessionStorage.setItem(KEY, safe);
  } catch {
    // storage refused (private mode): the router state alone carries it
  }
}

/** Where to go after sign-in: the router state first, then the remembered path, else the dashboard. */
export function deepLinkAfterSignIn(state: unknown): string {
  const fromState = safeWorkspacePath((state as { from?: unknown } | null)?.from);
  let stored: string | null = null;
  try {
    stored = safeWorkspacePath(sessionStorage.getItem(KEY));
  } catch {
    stored = null;
  }
  return fromState ?? stored ?? DEFAULT;
}

export function forgetDeepLink(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}
