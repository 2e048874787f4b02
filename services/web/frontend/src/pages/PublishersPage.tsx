import { useState, type FormEvent } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router-dom';
import { ApiError, apiBody } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { Field } from '../components/Field';
import { WorkTable } from '../components/WorkTable';
import { LazyBreakdownTable } from '../components/LazyBreakdownTable';
import { StatusBadge } from '../components/StatusBadge';
import { usePageTitle } from '../hooks/page-title';
import { usePublisherList } from '../hooks/workspace-lists';
import { useAccount } from '../session';
import { PUBLISHER_STATUSES } from '../status-words';
import { normalizedLink, otherClaims, sharedLinks, usernameOf } from '../publisher-link';
import type { Format, Publisher } from '../types';
import { formatDateTime } from '../format';
import { DraftRestoredNotice } from '../components/DraftRestoredNotice';
import { useFormDraft } from '../hooks/form-draft';

function linkHint(link: string, type: Format): string | null {
  const value = link.trim();
  if (!value) return 'Required.';
  const username = usernameOf(value);
  if (!username) return 'Enter the public link, https://t.me/<username>, or @username.';
  if (type === 'bot' && !username.toLowerCase().endsWith('bot')) return "A bot's username ends in 'bot'.";
  return null;
}

export function PublishersPage() {
  const account = useAccount();
  usePageTitle(account.admin ? 'Platforms of the network' : 'Your platforms');
  const any = usePublisherList({}, { limit: 1 });
  const client = useQueryClient();
  const navigate = useNavigate();
  const [type, setType] = useState<Format>('bot');
  const [link, setLink] = useState('');
  const [touched, setTouched] = useState(false);
  const restored = useFormDraft<{ type: Format; link: string }>('platform-create', { type, link }, { type: 'bot', link: '' }, (saved) => {
    setType(saved.type);
    setLink(saved.link);
  });
  const create = useSafeMutation({
    mutationFn: () => apiBody<Publisher>('/api/workspace/publishers', { method: 'POST', body: { type, link: normalizedLink(link) ?? link.trim() } }),
    onSuccess: (publisher) => {
      void client.invalidateQueries({ queryKey: ['publishers'] });
      navigate(`/workspace/publishers/${publisher.id}`);
    },
  });
  const serverErrors = create.error instanceof ApiError ? create.error.errors : [];
  const hint = touched ? linkHint(link, type) : null;
  const normalized = normalizedLink(link);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!linkHint(link, type)) create.mutate();
  };

  return (
    <section>
      <h1>{account.admin ? 'Platforms of the network' : 'Your platforms'}</h1>
      {/* Figures once there is a record to have them: a new account sees one empty-state message, the list's. */}
      {any.items.length > 0 ? <LazyBreakdownTable by="publisher" title="Figures by platform" names testId="platform-figures" /> : null}
      <h2>{account.admin ? 'Every platform' : 'Every platform of yours'}</h2>
      <WorkTable<Publisher>
        kind="publishers"
        statuses={PUBLISHER_STATUSES}
        searchHelp="Part of the link"
        noun={{ one: 'platform', many: 'platforms' }}
        testId="publisher-list"
        ownerFilter={account.admin}
        record={(publisher) => (
          <Link to={`/workspace/publishers/${publisher.id}`}>
            #{publisher.id} {publisher.link}
          </Link>
        )}
        columns={[
          { id: 'status', header: 'Status', cell: (publisher) => <StatusBadge status={publisher.status} /> },
          { id: 'type', header: 'Type · key', cell: (publisher) => `${publisher.type} · ${publisher.keyCreatedAt ? `key created ${formatDateTime(publisher.keyCreatedAt)}` : 'no key yet'}` },
          ...(account.admin
            ? [
                {
                  id: 'owner',
                  header: 'Owner',
                  cell: (publisher: Publisher, shown: readonly Publisher[]) => (
                    <>
                      <span data-testid="row-owner">{publisher.ownerAccountId}</span>
                      <SharedClaims claims={otherClaims(publisher, sharedLinks(shown))} />
                    </>
                  ),
                },
              ]
            : []),
        ]}
      />
      <h2>Register a platform</h2>
      <form onSubmit={submit} noValidate aria-label="Register a platform" className="narrow">
        <DraftRestoredNotice shown={restored} />
        <Field label="Type" serverErrors={serverErrors.filter((error) => error.field === 'type')}>
          {(props) => (
            <select {...props} name="type" value={type} onChange={(event) => setType(event.target.value as Format)}>
              <option value="bot">Bot</option>
              <option value="channel">Channel</option>
            </select>
          )}
        </Field>
        <Field
          label="Public link"
          hint={hint}
          help={
            normalized && normalized !== link.trim()
              ? `Will be registered as ${normalized}. We never ask for a bot token.`
              : 'https://t.me/<username>, t.me/<username> or @username. We never ask for a bot token.'
          }
          serverErrors={serverErrors.filter((error) => error.field === 'link')}
        >
          {(props) => (
            <input
              {...props}
              name="link"
              value={link}
              onChange={(event) => {
                setLink(event.target.value);
                setTouched(true);
              }}
            />
          )}
        </Field>
        {create.error && !(create.error instanceof ApiError && create.error.status === 422) ? <ErrorMessage error={create.error} /> : null}
        <button type="submit" className="button" disabled={create.isPending}>
          Register as draft
        </button>
      </form>
    </section>
  );
}

/** Among the platforms loaded: other accounts that registered the same link (the platform's page asks the service for all of them). */
function SharedClaims({ claims }: { claims: Publisher[] }) {
  if (claims.length === 0) return null;
  return (
    <p className="warning" data-testid="shared-link">
      The same link is also registered by {claims.map((claim) => `account ${claim.ownerAccountId} (#${claim.id})`).join(', ')}: only one of them can own it.
    </p>
  );
}
