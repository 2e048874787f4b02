import type { IdentityDeps } from './deps';

/** When the account last signed in (the notification service asks before messaging someone who blocked the bot). */
export async function readLastSignIn(deps: Pick<IdentityDeps, 'accounts'>, accountId: string): Promise<Date | null> {
  return deps.accounts.lastSignInAt(accountId);
}
