import { useRef, useState } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { apiBody } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { IntegrationFacts } from '../components/IntegrationFacts';
import { KeyPanel } from '../components/KeyPanel';
import { PlatformDemand } from '../components/PlatformDemand';
import { PlatformFill } from '../components/PlatformFill';
import { KeyStatusNote } from '../components/KeyStatusNote';
import { PausedNotice } from '../components/PausedNotice';
import { PauseForm } from '../components/PauseForm';
import { LazyBreakdownTable } from '../components/LazyBreakdownTable';
import type { Preset } from '../stats-view';
import { RecordLoadFailed } from '../components/RecordLoadFailed';
import { RecordStats } from '../components/RecordStats';
import { RejectForm } from '../components/RejectForm';
import { SharedLinkNotice } from '../components/SharedLinkNotice';
import { StatusBadge } from '../components/StatusBadge';
import { StatusHistory } from '../components/StatusHistory';
import { TestKeyPanel } from '../components/TestKeyPanel';
import { TryItPanel } from '../components/TryItPanel';
import { usePageTitle } from '../hooks/page-title';
import { safeHttpsUrl } from '../limits';
import { useAccount } from '../session';
import type { Publisher } from '../types';

type Action = 'submit' | 'approve' | 'reject' | 'pause';

export function PublisherDetailPage() {
  const { id = '' } = useParams();
  const account = useAccount();
  const client = useQueryClient();
  const publisher = useQuery({ queryKey: ['publisher', id], queryFn: () => apiBody<Publisher>(`/api/workspace/publishers/${encodeURIComponent(id)}`) });
  const heading = useRef<HTMLHeadingElement>(null);
  // A test key just made is handed to the test request form, so it can be tried without pasting.
  const [freshTestKey, setFreshTestKey] = useState<string | null>(null);
  // One period for the totals and the table by campaign.
  const [period, setPeriod] = useState<Preset>('all');
  usePageTitle(`Platform #${id}`);
  const transition = useSafeMutation({
    mutationFn: ({ action, reason }: { action: Action; reason?: string }) =>
      apiBody<Publisher>(`/api/workspace/publishers/${encodeURIComponent(id)}/${action}`, { method: 'POST', body: reason === undefined ? {} : { reason } }),
    onSuccess: (updated) => {
      client.setQueryData(['publisher', id], updated);
      void client.invalidateQueries({ queryKey: ['publishers'] });
      void client.invalidateQueries({ queryKey: ['audit'] });
      // The pressed button left with the old status: focus goes to the heading instead of being lost.
      heading.current?.focus();
    },
    // A refusal because the record moved meanwhile: the page shows what it is now.
    onError: () => void client.invalidateQueries({ queryKey: ['publisher', id] }),
  });
  if (publisher.error) return <RecordLoadFailed kind="publisher" id={id} error={publisher.error} />;
  if (!publisher.data)
    return (
      <p className="loading" role="status">
        Loading the platform…
      </p>
    );
  const p = publisher.data;
  const owner = p.ownerAccountId === account.accountId;
  const link = safeHttpsUrl(p.link);
  const busy = transition.isPending;

  return (
    <section>
      <p>
        <Link to="/workspace/publishers">← Platforms</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Platform #{p.id} <StatusBadge status={p.status} />
      </h1>
      <dl className="facts">
        <dt>Type</dt>
        <dd>{p.type}</dd>
        <dt>Public link</dt>
        <dd className="break">{link ? <a href={link} target="_blank" rel="noopener noreferrer">{p.link}</a> : p.link}</dd>
        <dt>Owner</dt>
        <dd>{owner ? 'You' : p.ownerAccountId}</dd>
      </dl>
      {account.admin ? <SharedLinkNotice publisher={p} /> : null}
      {p.status === 'rejected' && p.rejectionReason ? <p className="reason">Rejected: <bdi dir="auto">{p.rejectionReason}</bdi></p> : null}
      {p.status === 'paused' ? <PausedNotice record="publisher" id={p.id} ownerAccountId={p.ownerAccountId} viewer={account} pauseReason={p.pauseReason} /> : null}
      {p.status === 'submitted' && owner ? <p>An administrator checks ownership and the placement before approval.</p> : null}
      <div className="actions" aria-label="Actions">
        {owner && (p.status === 'draft' || p.status === 'rejected') ? (
          <button type="button" className="button" onClick={() => transition.mutate({ action: 'submit' })} disabled={busy}>
            Submit for review
          </button>
        ) : null}
        {account.admin && (p.status === 'submitted' || p.status === 'paused') ? (
          <button type="button" className="button" onClick={() => transition.mutate({ action: 'approve' })} disabled={busy}>
            Approve
          </button>
        ) : null}
        {account.admin && p.status === 'approved' ? (
          <PauseForm draftKey={`platform-${p.id}`} record="publisher" asOwner={false} pending={busy} onPause={(reason) => transition.mutate({ action: 'pause', reason })} />
        ) : null}
        {account.admin && (p.status === 'submitted' || p.status === 'approved' || p.status === 'paused') ? (
          <RejectForm record="publisher" draftKey={`platform-${p.id}`} pending={busy} onReject={(reason) => transition.mutate({ action: 'reject', reason })} />
        ) : null}
      </div>
      <ErrorMessage error={transition.error} />
      {owner || account.admin ? <PlatformFill publisherId={p.id} /> : null}
      {owner || account.admin ? <PlatformDemand publisherId={p.id} /> : null}
      {owner ? <IntegrationFacts publisher={p} /> : null}
      {owner && p.status === 'approved' ? <KeyPanel publisher={p} /> : null}
      {owner && p.status !== 'approved' ? <KeyStatusNote publisher={p} /> : null}
      {owner ? <TestKeyPanel publisher={p} onKey={setFreshTestKey} /> : null}
      {owner ? <TryItPanel key={freshTestKey ?? ''} publisher={p} freshTestKey={freshTestKey} /> : null}
      <RecordStats record="publisher" id={p.id} preset={period} onPreset={setPeriod} />
      <LazyBreakdownTable by="campaign" publisherId={String(p.id)} title="This platform by campaign" names={account.admin} testId="platform-campaigns" preset={period} />
      <StatusHistory record="publisher" id={p.id} ownerAccountId={p.ownerAccountId} viewer={account} />
    </section>
  );
}
