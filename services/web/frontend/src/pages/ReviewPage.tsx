/**
 * The administrator's review queue (issue 20, UX): campaigns and platforms in review, oldest first, each
 * approved or rejected where it stands; then approved campaigns waiting for activation. After a decision
 * the row leaves the list, a status line says what was done and focus goes to that line.
 */
import { useRef, useState, type ReactNode } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { apiBody } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { RejectForm } from '../components/RejectForm';
import { useReviewQueue } from '../hooks/review-queue';
import { usePageTitle } from '../hooks/page-title';
import { useAccount } from '../session';
import { formatCount, formatDateTime } from '../format';

type Kind = 'campaigns' | 'publishers';
type Decision = 'approve' | 'reject' | 'activate';

const DONE: Record<Decision, string> = { approve: 'approved', reject: 'rejected', activate: 'activated' };

function since(iso: string): string {
  return formatDateTime(iso);
}

export function ReviewPage() {
  const account = useAccount();
  usePageTitle('Review queue');
  const queue = useReviewQueue(account.admin);
  const client = useQueryClient();
  const [news, setNews] = useState<string | null>(null);
  const newsLine = useRef<HTMLParagraphElement>(null);
  const decide = useSafeMutation({
    mutationFn: ({ kind, id, decision, reason }: { kind: Kind; id: number; decision: Decision; reason?: string }) =>
      apiBody<{ id: number }>(`/api/workspace/${kind}/${id}/${decision}`, { method: 'POST', body: reason === undefined ? {} : { reason } }),
    onSuccess: (_answer, { kind, id, decision }) => {
      setNews(`${kind === 'campaigns' ? 'Campaign' : 'Platform'} #${id} ${DONE[decision]}.`);
      void client.invalidateQueries({ queryKey: [kind] });
      void client.invalidateQueries({ queryKey: [kind === 'campaigns' ? 'campaign' : 'publisher', String(id)] });
      void client.invalidateQueries({ queryKey: ['audit'] });
      // The row whose button was pressed leaves the list: focus goes to the line that says what happened.
      setTimeout(() => newsLine.current?.focus(), 0);
    },
  });
  if (!account.admin) return <p className="error" role="alert">Only administrators review campaigns and platforms.</p>;
  const busy = decide.isPending;
  const buttons = (kind: Kind, id: number) => (
    <div className="actions">
      <button
        type="button"
        className="button"
        disabled={busy}
        aria-label={`Approve #${id}, ${kind === 'campaigns' ? 'campaign' : 'platform'}`}
        onClick={() => decide.mutate({ kind, id, decision: 'approve' })}
      >
        Approve #{id}
      </button>
      <RejectForm draftKey={`${kind}-${id}`} pending={busy} onReject={(reason) => decide.mutate({ kind, id, decision: 'reject', reason })} />
    </div>
  );

  return (
    <section>
      <h1>Review queue</h1>
      <p className="help">Oldest first: what has waited longest is at the top.</p>
      <p ref={newsLine} tabIndex={-1} role="status" className={news ? 'notice' : undefined} data-testid="review-news">
        {news}
      </p>
      <ErrorMessage error={decide.error ?? queue.error} />
      {!queue.loaded && !queue.error ? (
        <p className="loading" role="status">
          Loading the queue…
        </p>
      ) : null}
      {queue.loaded ? (
        <>
          <QueueSection title="Campaigns in review" items={queue.campaigns} empty="No campaign waits for review." testId="review-campaigns">
            {(campaign) => (
              <>
                <Link to={`/workspace/campaigns/${campaign.id}`}>
                  #{campaign.id} {campaign.name}
                </Link>
                <p className="card-title">{campaign.title}</p>
                <p className="help">
                  {campaign.format} · {campaign.language} · owner {campaign.ownerAccountId} · in review since {since(campaign.updatedAt)}
                  {campaign.replaces ? ` · replaces #${campaign.replaces}` : ''}
                </p>
                {buttons('campaigns', campaign.id)}
              </>
            )}
          </QueueSection>
          <QueueSection title="Platforms in review" items={queue.platforms} empty="No platform waits for review." testId="review-platforms">
            {(publisher) => (
              <>
                <Link to={`/workspace/publishers/${publisher.id}`}>
                  #{publisher.id} {publisher.link}
                </Link>
                <p className="help">
                  {publisher.type} · owner {publisher.ownerAccountId} · in review since {since(publisher.updatedAt)}
                </p>
                {buttons('publishers', publisher.id)}
              </>
            )}
          </QueueSection>
          <QueueSection title="Approved, waiting for activation" items={queue.waitingForActivation} empty="No approved campaign waits for activation." testId="review-waiting">
            {(campaign) => (
              <>
                <Link to={`/workspace/campaigns/${campaign.id}`}>
                  #{campaign.id} {campaign.name}
                </Link>
                <p className="help">
                  owner {campaign.ownerAccountId} · approved {since(campaign.updatedAt)}
                </p>
                <button type="button" className="button" disabled={busy} aria-label={`Activate #${campaign.id}, campaign`} onClick={() => decide.mutate({ kind: 'campaigns', id: campaign.id, decision: 'activate' })}>
                  Activate #{campaign.id}
                </button>
              </>
            )}
          </QueueSection>
        </>
      ) : null}
    </section>
  );
}

/** One part of the queue: its title with how many wait, the words when none does, and a card per record. */
function QueueSection<T extends { id: number }>({ title, items, empty, testId, children }: { title: string; items: T[]; empty: string; testId: string; children: (item: T) => ReactNode }) {
  return (
    <>
      <h2>
        {title} ({formatCount(items.length)})
      </h2>
      {items.length === 0 ? <p>{empty}</p> : null}
      <ul className="cards" data-testid={testId}>
        {items.map((item) => (
          <li key={item.id} className="card">
            {children(item)}
          </li>
        ))}
      </ul>
    </>
  );
}
