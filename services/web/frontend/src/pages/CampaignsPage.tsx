import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { apiBody, query } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { StatusBadge } from '../components/StatusBadge';
import { usePageTitle } from '../hooks/page-title';
import { useAccount } from '../session';
import { CAMPAIGN_STATUSES, statusWord } from '../status-words';
import type { Campaign } from '../types';

export function CampaignsPage() {
  const account = useAccount();
  usePageTitle(account.admin ? 'Campaigns of the network' : 'Your campaigns');
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const campaigns = useQuery({
    queryKey: ['campaigns', status],
    queryFn: ({ signal }) => apiBody<{ items: Campaign[] }>(`/api/workspace/campaigns${query({ status })}`, { signal }),
  });
  return (
    <section>
      <div className="section-head">
        <h1>{account.admin ? 'Campaigns of the network' : 'Your campaigns'}</h1>
        <Link className="button" to="/workspace/campaigns/new">
          New campaign
        </Link>
      </div>
      <div className="filters">
        <label>
          Status
          <select value={status} onChange={(event) => setParams(event.target.value ? { status: event.target.value } : {})}>
            <option value="">All</option>
            {CAMPAIGN_STATUSES.map((value) => (
              <option key={value} value={value}>
                {statusWord(value)}
              </option>
            ))}
          </select>
        </label>
        {account.admin ? (
          <Link to="/workspace/review">Review queue</Link>
        ) : null}
      </div>
      <ErrorMessage error={campaigns.error} />
      {campaigns.data ? (
        campaigns.data.items.length === 0 ? (
          <p>No campaigns here yet.</p>
        ) : (
          <ul className="cards" data-testid="campaign-list">
            {campaigns.data.items.map((campaign) => (
              <li key={campaign.id} className="card">
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
                {campaign.status === 'rejected' && campaign.rejectionReason ? (
                  <p className="reason">Rejected: {campaign.rejectionReason}</p>
                ) : null}
              </li>
            ))}
          </ul>
        )
      ) : campaigns.isPending ? (
        <p className="loading" role="status">
          Loading campaigns…
        </p>
      ) : null}
    </section>
  );
}
