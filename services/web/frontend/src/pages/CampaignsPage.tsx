import { Link } from 'react-router-dom';
import { ErrorMessage } from '../components/ErrorMessage';
import { ListControls } from '../components/ListControls';
import { Pager } from '../components/Pager';
import { StatusBadge } from '../components/StatusBadge';
import { useListParams } from '../hooks/list-params';
import { usePageTitle } from '../hooks/page-title';
import { useCampaignList } from '../hooks/workspace-lists';
import { LIST_PAGE_SIZE, listView, sortOptions } from '../list-view';
import { useAccount } from '../session';
import { CAMPAIGN_STATUSES } from '../status-words';
import type { Campaign } from '../types';

const SORTS = sortOptions<Campaign>('Name A–Z', (campaign) => campaign.name, CAMPAIGN_STATUSES);
const searchText = (campaign: Campaign) => `${campaign.name} ${campaign.title} ${campaign.language} owner ${campaign.ownerAccountId}`;

export function CampaignsPage() {
  const account = useAccount();
  usePageTitle(account.admin ? 'Campaigns of the network' : 'Your campaigns');
  const [list, setList] = useListParams();
  const campaigns = useCampaignList();
  const view = listView(campaigns.data?.items ?? [], list, searchText, SORTS);
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
      <ListControls state={list} onChange={setList} statuses={CAMPAIGN_STATUSES} counts={view.counts} sorts={SORTS} searchHelp="Name, title or #id" noun="campaigns" />
      <ErrorMessage error={campaigns.error} />
      {campaigns.data ? (
        campaigns.data.items.length === 0 ? (
          <p>No campaigns here yet.</p>
        ) : view.total === 0 ? (
          <p>No campaign matches. Change the search or the status.</p>
        ) : (
          <>
            <ul className="cards" data-testid="campaign-list">
              {view.rows.map((campaign) => (
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
            <Pager page={view.page} size={LIST_PAGE_SIZE} total={view.total} onPage={(page) => setList({ page })} label="Pages of the campaigns" labels={['← Previous', 'Next →']} />
          </>
        )
      ) : campaigns.isPending ? (
        <p className="loading" role="status">
          Loading campaigns…
        </p>
      ) : null}
    </section>
  );
}
