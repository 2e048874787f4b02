import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { apiBody } from '../api';
import type { BulkAction } from '../components/BulkActions';
import { WorkTable } from '../components/WorkTable';
import { languageWords } from '../languages';
import { LazyBreakdownTable } from '../components/LazyBreakdownTable';
import { StatusBadge } from '../components/StatusBadge';
import { usePageTitle } from '../hooks/page-title';
import { useCampaignList } from '../hooks/workspace-lists';
import { useAccount } from '../session';
import { CAMPAIGN_STATUSES } from '../status-words';
import type { Campaign } from '../types';

const move = (campaign: Campaign, action: 'submit' | 'pause') =>
  apiBody<Campaign>(`/api/workspace/campaigns/${campaign.id}/${action}`, { method: 'POST', body: {} });

/** An owner's moves on several of its campaigns: drafts and rejected ones submitted, active ones paused. */
function ownerMoves(accountId: string): Array<BulkAction<Campaign>> {
  const own = (campaign: Campaign) => campaign.ownerAccountId === accountId;
  return [
    {
      id: 'submit',
      label: 'Submit for review',
      applies: (campaign) => own(campaign) && (campaign.status === 'draft' || campaign.status === 'rejected'),
      run: async (campaign) => {
        await move(campaign, 'submit');
        return 'submitted for review';
      },
    },
    {
      id: 'pause',
      label: 'Pause',
      applies: (campaign) => own(campaign) && campaign.status === 'active',
      confirm: (count) => `Pause ${count === 1 ? 'this campaign' : `these ${count} campaigns`}? Publishers stop showing ${count === 1 ? 'it' : 'them'} at once; an administrator activates ${count === 1 ? 'it' : 'them'} again.`,
      run: async (campaign) => {
        const answer = await move(campaign, 'pause');
        return answer.status === 'paused' ? 'paused' : `now ${answer.status}`;
      },
    },
  ];
}

export function CampaignsPage() {
  const account = useAccount();
  usePageTitle(account.admin ? 'Campaigns of the network' : 'Your campaigns');
  const any = useCampaignList({}, { limit: 1 });
  const client = useQueryClient();
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
      {/* Figures once there is a record to have them: a new account sees one empty-state message, the list's. */}
      {any.items.length > 0 ? <LazyBreakdownTable by="campaign" title="Figures by campaign" names testId="campaign-figures" /> : null}
      <h2>{account.admin ? 'Every campaign' : 'Every campaign of yours'}</h2>
      <WorkTable<Campaign>
        kind="campaigns"
        statuses={CAMPAIGN_STATUSES}
        searchHelp="Part of the name or title"
        noun={{ one: 'campaign', many: 'campaigns' }}
        testId="campaign-list"
        ownerFilter={account.admin}
        bulk={{
          actions: ownerMoves(account.accountId),
          onDone: () => {
            void client.invalidateQueries({ queryKey: ['campaigns'] });
            void client.invalidateQueries({ queryKey: ['audit'] });
          },
        }}
        record={(campaign) => (
          <>
            <Link to={`/workspace/campaigns/${campaign.id}`}>
              #{campaign.id} <bdi dir="auto">{campaign.name}</bdi>
            </Link>
            <span className="card-title help" dir="auto">
              {campaign.title}
            </span>
          </>
        )}
        columns={[
          {
            id: 'status',
            header: 'Status',
            cell: (campaign) => (
              <>
                <StatusBadge status={campaign.status} />
                {campaign.status === 'rejected' && campaign.rejectionReason ? (
                  <>
                    {' '}
                    <span className="reason">
                      Rejected: <bdi dir="auto">{campaign.rejectionReason}</bdi>
                    </span>
                  </>
                ) : null}
              </>
            ),
          },
          { id: 'format', header: 'Format · language', cell: (campaign) => `${campaign.format} · ${languageWords(campaign.language)}${campaign.replaces ? ` · replaces #${campaign.replaces}` : ''}` },
          ...(account.admin ? [{ id: 'owner', header: 'Owner', cell: (campaign: Campaign) => <span data-testid="row-owner">{campaign.ownerAccountId}</span> }] : []),
        ]}
      />
    </section>
  );
}
