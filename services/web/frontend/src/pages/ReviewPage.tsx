/**
 * The administrator's review queue: campaigns and platforms in review, oldest first, each shown as the
 * bot will render it with its owner's history, approved, approved and activated, or rejected where it
 * stands; several at once when selected; by keyboard (j/k, a, r, x). Then approved campaigns waiting
 * for activation. After a decision a status line says what was done and focus goes to that line.
 */
import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { apiBody, describeError } from '../api';
import { CreativePreview } from '../components/CreativePreview';
import { DestinationHost } from '../components/DestinationHost';
import { ErrorMessage } from '../components/ErrorMessage';
import { LoadMore } from '../components/LoadMore';
import { OwnerHistory } from '../components/OwnerHistory';
import { RejectForm } from '../components/RejectForm';
import { inStatusSince, useReviewQueue } from '../hooks/review-queue';
import { usePageTitle } from '../hooks/page-title';
import { dropFromStatusLists, type PagedList } from '../hooks/workspace-lists';
import { SHORTCUTS, approveThenActivate, moveIndex, shortcutOf } from '../review-logic';
import { languageWords } from '../languages';
import { useAccount } from '../session';
import { formatCount, formatDateTime } from '../format';
import type { CampaignTransitionAnswer } from '../types';

type Kind = 'campaigns' | 'publishers';
type Decision = 'approve' | 'reject' | 'activate' | 'approve-activate';

interface Job {
  kind: Kind;
  id: number;
  decision: Decision;
  reason?: string;
}

interface Outcome {
  job: Job;
  ok: boolean;
  words: string;
}

const DONE: Record<Decision, string> = { approve: 'approved', reject: 'rejected', activate: 'activated', 'approve-activate': 'approved and activated' };

const keyOf = (kind: Kind, id: number) => `${kind}:${id}`;
const nameOf = (kind: Kind, id: number) => `${kind === 'campaigns' ? 'Campaign' : 'Platform'} #${id}`;

function transition(kind: Kind, id: number, step: 'approve' | 'reject' | 'activate', reason?: string) {
  return apiBody<CampaignTransitionAnswer>(`/api/workspace/${kind}/${id}/${step}`, { method: 'POST', body: reason === undefined ? {} : { reason } });
}

/** One decision, said in words whatever happened; approve-and-activate says which step failed. */
async function run(job: Job): Promise<Outcome> {
  const name = nameOf(job.kind, job.id);
  if (job.decision === 'approve-activate') {
    let pending = false;
    const outcome = await approveThenActivate(async (step) => {
      const answer = await transition(job.kind, job.id, step);
      pending = answer.propagation === 'pending';
    });
    if (outcome.activated) return { job, ok: true, words: `${name} approved and activated${pending ? ' (ad serving takes it up once the service is reachable again)' : ''}.` };
    if (outcome.approved) return { job, ok: false, words: `${name} approved, but not activated: ${describeError(outcome.error)} It waits under "Approved, waiting for activation".` };
    return { job, ok: false, words: `${name} not approved: ${describeError(outcome.error)}` };
  }
  try {
    await transition(job.kind, job.id, job.decision, job.reason);
    return { job, ok: true, words: `${name} ${DONE[job.decision]}.` };
  } catch (error) {
    return { job, ok: false, words: `${name} not ${DONE[job.decision]}: ${describeError(error)}` };
  }
}

export function ReviewPage() {
  const account = useAccount();
  usePageTitle('Review queue');
  const queue = useReviewQueue(account.admin);
  const client = useQueryClient();
  const [news, setNews] = useState<{ ok: boolean; outcomes: Outcome[] } | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [current, setCurrent] = useState<string | null>(null);
  const newsLine = useRef<HTMLDivElement>(null);
  const decide = useSafeMutation({
    // One after the other: a bulk decision reads in the order chosen, and the service is not flooded.
    mutationFn: async (jobs: Job[]) => {
      const outcomes: Outcome[] = [];
      for (const job of jobs) outcomes.push(await run(job));
      return outcomes;
    },
    onSuccess: (outcomes) => {
      setNews({ ok: outcomes.every((outcome) => outcome.ok), outcomes });
      setSelected(new Set());
      const decided = (kind: Kind, left: (decision: Decision) => boolean) => new Set(outcomes.filter(({ ok, job }) => ok && job.kind === kind && left(job.decision)).map(({ job }) => job.id));
      const leftReview = (decision: Decision) => decision !== 'activate';
      dropFromStatusLists(client, 'campaigns', 'submitted', decided('campaigns', leftReview));
      dropFromStatusLists(client, 'publishers', 'submitted', decided('publishers', leftReview));
      dropFromStatusLists(client, 'campaigns', 'approved', decided('campaigns', (decision) => decision === 'activate'));
      void client.invalidateQueries({ queryKey: ['campaigns'] });
      void client.invalidateQueries({ queryKey: ['publishers'] });
      for (const { job } of outcomes) void client.invalidateQueries({ queryKey: [job.kind === 'campaigns' ? 'campaign' : 'publisher', String(job.id)] });
      void client.invalidateQueries({ queryKey: ['audit'] });
      // The rows decided leave the list: focus goes to the line that says what happened.
      setTimeout(() => newsLine.current?.focus(), 0);
    },
  });
  const busy = decide.isPending;

  // The items the shortcuts move through, in the order shown.
  const order = [...queue.campaigns.items.map((item) => keyOf('campaigns', item.id)), ...queue.platforms.items.map((item) => keyOf('publishers', item.id))];
  const latest = useRef({ order, current, busy });
  latest.current = { order, current, busy };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = shortcutOf({ key: event.key, altKey: event.altKey, ctrlKey: event.ctrlKey, metaKey: event.metaKey, target: event.target as HTMLElement | null });
      if (!action) return;
      const { order: keys, current: at, busy: deciding } = latest.current;
      const index = at ? keys.indexOf(at) : -1;
      if (action === 'next' || action === 'previous') {
        const next = keys[moveIndex(index, action === 'next' ? 1 : -1, keys.length)];
        if (!next) return;
        event.preventDefault();
        setCurrent(next);
        document.querySelector<HTMLElement>(`[data-queue-key="${next}"]`)?.focus();
        return;
      }
      if (!at || index < 0) return;
      event.preventDefault();
      if (action === 'select') {
        setSelected((before) => toggled(before, at));
        return;
      }
      if (deciding) return;
      document.querySelector<HTMLButtonElement>(`[data-queue-key="${at}"] [data-shortcut="${action}"]`)?.click();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  if (!account.admin) return <p className="error" role="alert">Only administrators review campaigns and platforms.</p>;

  const jobsOf = (decision: Decision, reason?: string): Job[] =>
    order
      .filter((key) => selected.has(key))
      .map((key) => {
        const [kind, id] = key.split(':') as [Kind, string];
        return { kind, id: Number(id), decision, reason };
      });
  const toggle = (key: string) => setSelected((before) => toggled(before, key));
  // The common reasons of one kind of record, when every record selected is of that kind.
  const kinds = new Set([...selected].map((key) => key.split(':')[0]));
  const selectedKind = kinds.size === 1 ? (kinds.has('campaigns') ? 'campaign' : 'publisher') : undefined;
  const decisionButtons = (kind: Kind, id: number) => (
    <div className="actions">
      <button type="button" className="button" disabled={busy} data-shortcut="approve" aria-label={`Approve #${id}, ${kind === 'campaigns' ? 'campaign' : 'platform'}`} onClick={() => decide.mutate([{ kind, id, decision: 'approve' }])}>
        Approve #{id}
      </button>
      {kind === 'campaigns' ? (
        <button type="button" className="button button-secondary" disabled={busy} aria-label={`Approve and activate #${id}, campaign`} onClick={() => decide.mutate([{ kind, id, decision: 'approve-activate' }])}>
          Approve and activate
        </button>
      ) : null}
      <RejectForm record={kind === 'campaigns' ? 'campaign' : 'publisher'} draftKey={`${kind}-${id}`} pending={busy} shortcut="reject" openName={`Reject… #${id}, ${kind === 'campaigns' ? 'campaign' : 'platform'}`} onReject={(reason) => decide.mutate([{ kind, id, decision: 'reject', reason }])} />
    </div>
  );
  const itemProps = (kind: Kind, id: number) => ({
    queueKey: keyOf(kind, id),
    current: current === keyOf(kind, id),
    selected: selected.has(keyOf(kind, id)),
    onSelect: () => toggle(keyOf(kind, id)),
    onFocus: () => setCurrent(keyOf(kind, id)),
    label: nameOf(kind, id),
  });

  return (
    <section>
      <h1>Review queue</h1>
      <p className="help">Oldest first: what has waited longest is at the top.</p>
      <details className="shortcuts" data-testid="shortcuts">
        <summary>Keyboard shortcuts</summary>
        <dl>
          {SHORTCUTS.map((shortcut) => (
            <div key={shortcut.key}>
              <dt>
                <kbd>{shortcut.key}</kbd>
              </dt>
              <dd>{shortcut.words}</dd>
            </div>
          ))}
        </dl>
        <p className="help">They do nothing while you type in a field.</p>
      </details>
      <div ref={newsLine} tabIndex={-1} role="status" className={news ? (news.ok ? 'notice' : 'warning') : undefined} data-testid="review-news">
        {news ? (
          <ul className="bulk-outcomes">
            {news.outcomes.map((outcome) => (
              <li key={keyOf(outcome.job.kind, outcome.job.id)} className={outcome.ok ? undefined : 'error'}>
                {outcome.words}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <ErrorMessage error={decide.error ?? queue.error} />
      {selected.size > 0 ? (
        <div className="bulk-bar" role="region" aria-label="Decide on the selected items" data-testid="bulk-bar">
          <span>{selected.size} selected</span>
          <button type="button" className="button" disabled={busy} onClick={() => decide.mutate(jobsOf('approve'))}>
            Approve selected ({selected.size})
          </button>
          <RejectForm record={selectedKind} draftKey="review-selected" pending={busy} openLabel={`Reject selected (${selected.size})…`} onReject={(reason) => decide.mutate(jobsOf('reject', reason))} />
          <button type="button" className="link-button" onClick={() => setSelected(new Set())}>
            Clear the selection
          </button>
        </div>
      ) : null}
      {!queue.loaded && !queue.error ? (
        <p className="loading" role="status">
          Loading the queue…
        </p>
      ) : null}
      {queue.loaded ? (
        <>
          <QueueSection title="Campaigns in review" list={queue.campaigns} noun={{ one: 'campaign in review', many: 'campaigns in review' }} empty="No campaign waits for review." testId="review-campaigns">
            {(campaign) => (
              <QueueItem {...itemProps('campaigns', campaign.id)}>
                <Link to={`/workspace/campaigns/${campaign.id}`}>
                  #{campaign.id} <bdi dir="auto">{campaign.name}</bdi>
                </Link>
                <p className="help">
                  {campaign.format} · {languageWords(campaign.language)} · in review since {formatDateTime(inStatusSince(campaign))}
                  {campaign.replaces ? ` · replaces #${campaign.replaces}` : ''}
                </p>
                <OwnerHistory ownerAccountId={campaign.ownerAccountId} />
                <CreativePreview title={campaign.title} text={campaign.text} buttonText={campaign.buttonText} imageUrl={campaign.imageUrl} destinationUrl={campaign.destinationUrl} />
                <DestinationHost url={campaign.destinationUrl} />
                {decisionButtons('campaigns', campaign.id)}
              </QueueItem>
            )}
          </QueueSection>
          <QueueSection title="Platforms in review" list={queue.platforms} noun={{ one: 'platform in review', many: 'platforms in review' }} empty="No platform waits for review." testId="review-platforms">
            {(publisher) => (
              <QueueItem {...itemProps('publishers', publisher.id)}>
                <Link to={`/workspace/publishers/${publisher.id}`}>
                  #{publisher.id} {publisher.link}
                </Link>
                <p className="help">
                  {publisher.type} · in review since <span data-testid="in-review-since">{formatDateTime(inStatusSince(publisher))}</span>
                </p>
                <OwnerHistory ownerAccountId={publisher.ownerAccountId} />
                {decisionButtons('publishers', publisher.id)}
              </QueueItem>
            )}
          </QueueSection>
          <QueueSection title="Approved, waiting for activation" list={queue.waitingForActivation} noun={{ one: 'approved campaign', many: 'approved campaigns' }} empty="No approved campaign waits for activation." testId="review-waiting">
            {(campaign) => (
              <li className="card">
                <Link to={`/workspace/campaigns/${campaign.id}`}>
                  #{campaign.id} <bdi dir="auto">{campaign.name}</bdi>
                </Link>
                <p className="help">
                  owner {campaign.ownerAccountId} · approved {formatDateTime(inStatusSince(campaign))}
                </p>
                <button type="button" className="button" disabled={busy} aria-label={`Activate #${campaign.id}, campaign`} onClick={() => decide.mutate([{ kind: 'campaigns', id: campaign.id, decision: 'activate' }])}>
                  Activate #{campaign.id}
                </button>
              </li>
            )}
          </QueueSection>
        </>
      ) : null}
    </section>
  );
}

function toggled(set: ReadonlySet<string>, key: string): ReadonlySet<string> {
  const next = new Set(set);
  if (next.has(key)) next.delete(key);
  else next.add(key);
  return next;
}

/** An item under review: focusable (the shortcuts' current item), with its box for a bulk decision. */
function QueueItem({ queueKey, current, selected, onSelect, onFocus, label, children }: { queueKey: string; current: boolean; selected: boolean; onSelect: () => void; onFocus: () => void; label: string; children: ReactNode }) {
  return (
    <li className={`card queue-item${current ? ' queue-current' : ''}`} data-queue-key={queueKey} tabIndex={-1} aria-current={current ? 'true' : undefined} onFocus={onFocus}>
      <label className="queue-select">
        <input type="checkbox" checked={selected} onChange={onSelect} />
        Select {label.toLowerCase()}
      </label>
      {children}
    </li>
  );
}

/** One part of the queue: its title with how many are loaded, the words when none waits, a row per record, and more on demand. */
function QueueSection<T extends { id: number }>({ title, list, noun, empty, testId, children }: { title: string; list: PagedList<T> & { count: { total: number | null; capped: boolean } }; noun: { one: string; many: string }; empty: string; testId: string; children: (item: T) => ReactNode }) {
  // How many wait, as the service counts them; the rows loaded until it has answered.
  const waiting = list.count.total ?? list.items.length;
  return (
    <>
      <h2>
        {title} ({formatCount(waiting)}
        {list.count.capped || (list.count.total === null && list.hasMore) ? '+' : ''})
      </h2>
      {list.items.length === 0 ? <p>{empty}</p> : null}
      <ul className="cards" data-testid={testId}>
        {list.items.map((item) => (
          <Fragment key={item.id}>{children(item)}</Fragment>
        ))}
      </ul>
      {list.hasMore ? <LoadMore shown={list.items.length} hasMore={list.hasMore} loading={list.loadingMore} onMore={list.loadMore} noun={noun} /> : null}
    </>
  );
}
