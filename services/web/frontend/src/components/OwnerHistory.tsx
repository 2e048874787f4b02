/**
 * Who owns a record under review: the account (the API has no account names, so its id) and its history,
 * how many campaigns and platforms it has and how they stand, from the lists filtered by owner (an account
 * has at most 100 of each, one call each).
 */
import { useCampaignList, usePublisherList } from '../hooks/workspace-lists';
import { historyWords } from '../review-logic';

const ACCOUNT_LIMIT = 100;

export function OwnerHistory({ ownerAccountId }: { ownerAccountId: string }) {
  const filters = { ownerAccountId };
  const campaigns = useCampaignList(filters, { limit: ACCOUNT_LIMIT });
  const platforms = usePublisherList(filters, { limit: ACCOUNT_LIMIT });
  const history =
    campaigns.loaded && platforms.loaded
      ? `${historyWords({ one: 'campaign', many: 'campaigns' }, campaigns.items.map((item) => item.status), campaigns.hasMore)}; ${historyWords({ one: 'platform', many: 'platforms' }, platforms.items.map((item) => item.status), platforms.hasMore)}`
      : campaigns.error || platforms.error
        ? 'history not available right now'
        : 'reading its history…';
  return (
    <p className="help" data-testid="owner-history">
      Owner: account {ownerAccountId} · {history}
    </p>
  );
}
