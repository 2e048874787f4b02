import { Link } from 'react-router-dom';
import { FilteredList } from '../components/FilteredList';
import { StatusBadge } from '../components/StatusBadge';
import { usePageTitle } from '../hooks/page-title';
import { useCampaignList } from '../hooks/workspace-lists';
import { sortOptions } from '../list-view';
import { useAccount } from '../session';
import { CAMPAIGN_STATUSES } from '../status-words';
import type { Campaign } from '../types';

const SORTS = sortOptions<Campaign>('Name A–Z', (campaign) => campaign.name, CAMPAIGN_STATUSES);
const searchText = (campaign: Campaign) => `${campaign.name} ${campaign.title} ${campaign.language} owner ${campaign.ownerAccountId}`;

export function CampaignsPage() {
  const account = useAccount();
  usePageTitle(account.admin ? 'Campaigns of the network' : 'Your campaigns');
  const campaigns = useCampaignList();
  return (
    <section>
      <div className="section-head">
        <h1>{account.admin ? 'Campaigns of the network' : 'Your campaigns'}</h1>
        <Link className="button" to="/workspace/campaigns/new">
          New campaign
        </Link>
      </div>
      {account.admin ? (
        <p>
          <Link to="/workspace/review">Review queue</Link>
        </p>
      ) : null}
      <FilteredList
        list={campaigns}
        statuses={CAMPAIGN_STATUSES}
        sorts={SORTS}
        searchText={searchText}
        searchHelp="Name, title or #id"
        noun={{ one: 'campaign', many: 'campaigns' }}
        emptyText="No campaigns here yet."
        testId="campaign-list"
        card={(campaign) => (
          <>
            <Link to={`/workspace/campaigns/${campaign.id}`}>
              #{campaign.id} {campaign.name}
            </Link>{' '}
            <StatusBadge status={campaign.status} />
            <p className="card-title">{campaign.title}</p>
            <p className="help">
              {campaign.format} · {campaign.language}
              {account.admin ? ` · owner ${campaign.ownerAccountId}` : ''}
              {campaign.replaces ? ` · replaces #${campaign.replaces}` : ''}
            </p>
            {campaign.status === 'rejected' && campaign.rejectionReason ? <p className="reason">Rejected: {campaign.rejectionReason}</p> : null}
          </>
        )}
      />
    </section>
  );
}
