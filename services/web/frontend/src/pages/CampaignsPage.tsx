import { Link } from 'react-router-dom';
import { FilteredList } from '../components/FilteredList';
import { LazyBreakdownTable } from '../components/LazyBreakdownTable';
import { StatusBadge } from '../components/StatusBadge';
import { usePageTitle } from '../hooks/page-title';
import { useCampaignList } from '../hooks/workspace-lists';
import { useAccount } from '../session';
import { CAMPAIGN_STATUSES } from '../status-words';

export function CampaignsPage() {
  const account = useAccount();
  usePageTitle(account.admin ? 'Campaigns of the network' : 'Your campaigns');
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
      <LazyBreakdownTable by="campaign" title="Figures by campaign" names testId="campaign-figures" />
      <h2>{account.admin ? 'Every campaign' : 'Every campaign of yours'}</h2>
      <FilteredList
        useList={useCampaignList}
        statuses={CAMPAIGN_STATUSES}
        searchHelp="Part of the name or title"
        noun={{ one: 'campaign', many: 'campaigns' }}
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
