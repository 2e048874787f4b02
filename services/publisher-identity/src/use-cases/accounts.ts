/**
 * Workspace sign-in: a login request bound to one browser; the person sends `/start <code>` to the bot,
 * which asks them whether that browser (named with its address and time) is theirs; their Confirm turns
 * the request into a server-side session on the binding browser's next poll, their Cancel ends it.
 * This module: the account a session shows, shared by the poll that issues it and its resolution.
 */
import type { IdentityDeps } from './deps';

export interface Account {
  accountId: string;
  displayName: string;
  admin: boolean;
}

/** Administrator rights decided now from ADMIN_ACCOUNT_IDS. */
export function accountOf(deps: Pick<IdentityDeps, 'adminAccountIds'>, accountId: string, displayName: string): Account {
  return { accountId, displayName, admin: deps.adminAccountIds.has(accountId) };
}
