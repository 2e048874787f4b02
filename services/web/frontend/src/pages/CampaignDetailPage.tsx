import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { apiBody } from '../api';
import { CreativePreview } from '../components/CreativePreview';
import { ErrorMessage } from '../components/ErrorMessage';
import { PausedNotice } from '../components/PausedNotice';
import { PauseForm } from '../components/PauseForm';
import { RejectForm } from '../components/RejectForm';
import { StatusBadge } from '../components/StatusBadge';
import { usePageTitle } from '../hooks/page-title';
import { safeHttpsUrl } from '../limits';
import { useAccount } from '../session';
import type { Campaign, CampaignTransitionAnswer } from '../types';

type Action = 'submit' | 'approve' | 'reject' | 'activate' | 'pause';

export function CampaignDetailPage() {
  const { id = '' } = useParams();
  const account = useAccount();
  const client = useQueryClient();
  const navigate = useNavigate();
  const campaign = useQuery({ queryKey: ['campaign', id], queryFn: () => apiBody<Campaign>(`/api/workspace/campaigns/${encodeURIComponent(id)}`) });
  const [pendingChange, setPendingChange] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  usePageTitle(campaign.data ? `Campaign #${campaign.data.id}: ${campaign.data.name}` : 'Campaign');
  const transition = useMutation({
    mutationFn: ({ action, reason }: { action: Action; reason?: string }) =>
      apiBody<CampaignTransitionAnswer>(`/api/workspace/campaigns/${encodeURIComponent(id)}/${action}`, { method: 'POST', body: reason === undefined ? {} : { reason } }),
    onSuccess: (updated) => {
      setPendingChange(updated.propagation === 'pending');
      client.setQueryData(['campaign', id], updated);
      void client.invalidateQueries({ queryKey: ['campaigns'] });
      void client.invalidateQueries({ queryKey: ['audit'] });
      // The button that was pressed is gone with the old status: focus goes to the heading, not to the page's end.
      heading.current?.focus();
    },
  });

  if (campaign.error) return <ErrorMessage error={campaign.error} />;
  if (!campaign.data)
    return (
      <p className="loading" role="status">
        Loading the campaign…
      </p>
    );
  const c = campaign.data;
  const owner = c.ownerAccountId === account.accountId;
  const act = (action: Action) => () => transition.mutate({ action });
  const destination = safeHttpsUrl(c.destinationUrl);

  return (
    <section>
      <p>
        <Link to="/workspace/campaigns">← Campaigns</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Campaign #{c.id}: {c.name} <StatusBadge status={c.status} />
      </h1>
      {c.status === 'rejected' && c.rejectionReason ? <p className="reason">Rejected: {c.rejectionReason}</p> : null}
      {c.status === 'paused' ? <PausedNotice record="campaign" id={c.id} viewerAccountId={account.accountId} asOwner={owner} /> : null}
      {pendingChange ? (
        <p className="notice" role="status">
          Saved, but not yet in effect: ad serving learns of it once the service&apos;s message broker is reachable again, usually within
          seconds. Until then publishers may still be shown the campaign as it was.
        </p>
      ) : null}
      <div className="editor">
        <dl className="facts">
          <dt>Format</dt>
          <dd>{c.format}</dd>
          <dt>Language</dt>
          <dd>{c.language}</dd>
          <dt>Destination</dt>
          <dd className="break">{destination ? <a href={destination} target="_blank" rel="noopener noreferrer">{c.destinationUrl}</a> : c.destinationUrl}</dd>
          <dt>Owner</dt>
          <dd>{owner ? 'You' : c.ownerAccountId}</dd>
          {c.replaces ? (
            <>
              <dt>Replaces</dt>
              <dd>
                <Link to={`/workspace/campaigns/${c.replaces}`}>#{c.replaces}</Link>
              </dd>
            </>
          ) : null}
          <dt>Updated</dt>
          <dd>{new Date(c.updatedAt).toLocaleString()}</dd>
        </dl>
        <div className="preview">
          <CreativePreview title={c.title} text={c.text} buttonText={c.buttonText} imageUrl={c.imageUrl} destinationUrl={c.destinationUrl} />
        </div>
      </div>
      <div className="actions" aria-label="Actions">
        {owner && (c.status === 'draft' || c.status === 'rejected') ? (
          <button type="button" className="button" onClick={act('submit')} disabled={transition.isPending}>
            Submit for review
          </button>
        ) : null}
        {account.admin && c.status === 'submitted' ? (
          <>
            <button type="button" className="button" onClick={act('approve')} disabled={transition.isPending}>
              Approve
            </button>
            <RejectForm pending={transition.isPending} onReject={(reason) => transition.mutate({ action: 'reject', reason })} />
          </>
        ) : null}
        {account.admin && (c.status === 'approved' || c.status === 'paused') ? (
          <button type="button" className="button" onClick={act('activate')} disabled={transition.isPending}>
            Activate
          </button>
        ) : null}
        {(owner || account.admin) && c.status === 'active' ? (
          <PauseForm record="campaign" asOwner={owner} pending={transition.isPending} onPause={(reason) => transition.mutate({ action: 'pause', reason })} />
        ) : null}
        {owner ? (
          <button type="button" className="button button-secondary" onClick={() => navigate(`/workspace/campaigns/new?replaces=${c.id}`)}>
            Create a replacement draft
          </button>
        ) : null}
      </div>
      <ErrorMessage error={transition.error} />
    </section>
  );
}
