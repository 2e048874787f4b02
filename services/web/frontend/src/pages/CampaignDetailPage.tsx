import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSafeMutation } from '../hooks/safe-mutation';
import { languageWords } from '../languages';
import { useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { apiBody } from '../api';
import { CreativePreview } from '../components/CreativePreview';
import { ErrorMessage } from '../components/ErrorMessage';
import { PausedNotice } from '../components/PausedNotice';
import { PauseForm } from '../components/PauseForm';
import { LazyBreakdownTable } from '../components/LazyBreakdownTable';
import { RecordLoadFailed } from '../components/RecordLoadFailed';
import { RecordStats } from '../components/RecordStats';
import { RejectForm } from '../components/RejectForm';
import { StatusBadge } from '../components/StatusBadge';
import { StatusHistory } from '../components/StatusHistory';
import { usePageTitle } from '../hooks/page-title';
import { useCampaignList } from '../hooks/workspace-lists';
import { safeHttpsUrl } from '../limits';
import { useAccount } from '../session';
import { statusWord } from '../status-words';
import type { Campaign, CampaignTransitionAnswer } from '../types';
import { formatDateTime } from '../format';
import type { Preset } from '../stats-view';

/** Statuses a campaign has never been on air from: it has no figures to show. */
const NEVER_SHOWN = new Set(['draft', 'submitted', 'approved', 'rejected']);

type Action = 'submit' | 'approve' | 'reject' | 'activate' | 'pause';

/** One page state per campaign: going to another one (its duplicate) starts afresh. */
export function CampaignDetailPage() {
  const { id = '' } = useParams();
  return <CampaignDetail key={id} id={id} />;
}

function CampaignDetail({ id }: { id: string }) {
  const account = useAccount();
  const client = useQueryClient();
  const navigate = useNavigate();
  const duplicatedFrom = (useLocation().state as { duplicatedFrom?: string } | null)?.duplicatedFrom;
  const campaign = useQuery({ queryKey: ['campaign', id], queryFn: () => apiBody<Campaign>(`/api/workspace/campaigns/${encodeURIComponent(id)}`) });
  const [pendingChange, setPendingChange] = useState(false);
  // One period for the totals and the table by platform.
  const [period, setPeriod] = useState<Preset>('all');
  const heading = useRef<HTMLHeadingElement>(null);
  usePageTitle(campaign.data ? `Campaign #${campaign.data.id}: ${campaign.data.name}` : 'Campaign');
  // The campaigns that replace this one (their `replaces` is this id): the owner's campaigns, at most 100
  // (an account's limit), one call filtered by owner for an administrator.
  const list = useCampaignList(account.admin && campaign.data ? { ownerAccountId: String(campaign.data.ownerAccountId) } : {}, { enabled: Boolean(campaign.data), limit: 100 });
  const transition = useSafeMutation({
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
    // A refusal because the record moved meanwhile: the page shows what it is now.
    onError: () => void client.invalidateQueries({ queryKey: ['campaign', id] }),
  });
  // A new draft with the same creative, opened at once (it counts toward the account's 100 records).
  const duplicate = useSafeMutation({
    mutationFn: () => apiBody<Campaign>(`/api/workspace/campaigns/${encodeURIComponent(id)}/duplicate`, { method: 'POST', body: {} }),
    onSuccess: (copy) => {
      client.setQueryData(['campaign', String(copy.id)], copy);
      void client.invalidateQueries({ queryKey: ['campaigns'] });
      void client.invalidateQueries({ queryKey: ['audit'] });
      navigate(`/workspace/campaigns/${copy.id}`, { state: { duplicatedFrom: id } });
    },
  });

  if (campaign.error) return <RecordLoadFailed kind="campaign" id={id} error={campaign.error} />;
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
  const replacements = list.items.filter((other) => other.replaces === c.id);

  return (
    <section>
      <p>
        <Link to="/workspace/campaigns">← Campaigns</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Campaign #{c.id}: <bdi dir="auto">{c.name}</bdi> <StatusBadge status={c.status} />
      </h1>
      {c.status === 'rejected' && c.rejectionReason ? <p className="reason">
          Rejected: <bdi dir="auto">{c.rejectionReason}</bdi>
        </p> : null}
      {owner && c.status === 'rejected' && replacements.length === 0 ? (
        <p className="notice">
          Creatives cannot be edited, so submitting the same content again would meet the same review. Create a replacement draft: a new draft that starts from this content, where you change what the review asked
          for, then submit it.
        </p>
      ) : null}
      {replacements.length > 0 ? (
        <div className="notice" data-testid="replaced-by">
          <p>
            Replaced by{' '}
            {replacements.map((other, index) => (
              <span key={other.id}>
                {index > 0 ? ', ' : ''}
                <Link to={`/workspace/campaigns/${other.id}`}>#{other.id}</Link> ({statusWord(other.status)})
              </span>
            ))}
            .
          </p>
          <p>
            A replacement does not change this campaign: it keeps its status{c.status === 'active' ? ' and is still shown to publishers until it is paused' : ''}.
            The replacement goes through review on its own and is shown only once an administrator activates it.
          </p>
        </div>
      ) : null}
      {c.status === 'paused' ? <PausedNotice record="campaign" id={c.id} ownerAccountId={c.ownerAccountId} viewer={account} pauseReason={c.pauseReason} /> : null}
      {duplicatedFrom ? (
        <p className="notice" role="status" data-testid="duplicated-from">
          A new draft duplicated from <Link to={`/workspace/campaigns/${duplicatedFrom}`}>campaign #{duplicatedFrom}</Link>. Submit it for review when it is ready.
        </p>
      ) : null}
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
          <dd>{languageWords(c.language)}</dd>
          <dt>Image address</dt>
          <dd className="break" data-testid="image-url">{c.imageUrl ?? 'None'}</dd>
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
          <dt>Created</dt>
          <dd>{formatDateTime(c.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{formatDateTime(c.updatedAt)}</dd>
        </dl>
        <div className="preview">
          <CreativePreview title={c.title} text={c.text} buttonText={c.buttonText} imageUrl={c.imageUrl} destinationUrl={c.destinationUrl} />
        </div>
      </div>
      <div className="actions" aria-label="Actions">
        {owner && c.status === 'draft' ? (
          <button type="button" className="button" onClick={act('submit')} disabled={transition.isPending}>
            Submit for review
          </button>
        ) : null}
        {account.admin && c.status === 'submitted' ? (
          <>
            <button type="button" className="button" onClick={act('approve')} disabled={transition.isPending}>
              Approve
            </button>
            <RejectForm record="campaign" draftKey={`campaign-${c.id}`} pending={transition.isPending} onReject={(reason) => transition.mutate({ action: 'reject', reason })} />
          </>
        ) : null}
        {account.admin && (c.status === 'approved' || c.status === 'paused') ? (
          <button type="button" className="button" onClick={act('activate')} disabled={transition.isPending}>
            Activate
          </button>
        ) : null}
        {(owner || account.admin) && c.status === 'active' ? (
          <PauseForm draftKey={`campaign-${c.id}`} record="campaign" asOwner={owner} pending={transition.isPending} onPause={(reason) => transition.mutate({ action: 'pause', reason })} />
        ) : null}
        {owner ? (
          <button
            type="button"
            className={c.status === 'rejected' ? 'button' : 'button button-secondary'}
            onClick={() => navigate(`/workspace/campaigns/new?replaces=${c.id}`)}
          >
            Create a replacement draft
          </button>
        ) : null}
        {owner ? (
          <button type="button" className="button button-secondary" onClick={() => duplicate.mutate()} disabled={duplicate.isPending} data-testid="duplicate">
            {duplicate.isPending ? 'Duplicating…' : 'Duplicate'}
          </button>
        ) : null}
      </div>
      {owner ? <p className="help">Duplicate: a new draft with the same content, named “… (copy)”, to change and submit on its own.</p> : null}
      <ErrorMessage error={transition.error ?? duplicate.error} />
      {NEVER_SHOWN.has(c.status) ? (
        <p className="notice" data-testid="no-figures">
          No figures yet: a campaign counts requests, deliveries and clicks once it is active.
        </p>
      ) : (
        <>
          <RecordStats record="campaign" id={c.id} preset={period} onPreset={setPeriod} />
          <LazyBreakdownTable by="publisher" campaignId={String(c.id)} title="This campaign by platform" names={account.admin} testId="campaign-platforms" preset={period} />
        </>
      )}
      <StatusHistory record="campaign" id={c.id} ownerAccountId={c.ownerAccountId} viewer={account} />
    </section>
  );
}
