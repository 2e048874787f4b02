import type { IdentityDeps } from './deps';

/** The display names of the accounts among `ids` that have one (the gateway shows who acted in the audit). */
export async function readAccountNames(deps: Pick<IdentityDeps, 'accounts'>, ids: readonly string[]): Promise<Map<string, string>> {
  return deps.accounts.displayNames(ids);
}
