/**
 * The platform's sandbox test key, next to the live key: its owner makes one
 * whatever the platform's status, sees it once (only in this component's memory), and can revoke it.
 * Making a new one replaces the previous test key; neither touches the live key.
 */
import { useState } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQueryClient } from '@tanstack/react-query';
import { api, apiBody } from '../api';
import { ErrorMessage } from './ErrorMessage';
import type { Publisher } from '../types';
import { formatDateTime } from '../format';
import { CopyButton } from './CopyButton';

interface NewKey {
  key: string;
  keyCreatedAt: string;
}

/** `onKey` hears the new test key when one is made and null when it is revoked (the page's test request form uses it). */
export function TestKeyPanel({ publisher, onKey }: { publisher: Publisher; onKey?: (key: string | null) => void }) {
  const client = useQueryClient();
  const [confirmingRevoke, setConfirmingRevoke] = useState(false);
  const [confirmingReplace, setConfirmingReplace] = useState(false);
  // In the component's own state, like the live key's (KeyPanel): hiding it takes it off the page, the test
  // request form's copy included, within the click.
  const [key, setKey] = useState<string | undefined>();
  const showKey = (shown: string | undefined) => {
    setKey(shown);
    onKey?.(shown ?? null);
  };
  const path = `/api/workspace/publishers/${publisher.id}/test-key`;
  // A key just made or revoked has not been used: its last use is known, none.
  const setTestKeyCreatedAt = (testKeyCreatedAt: string | null) => {
    client.setQueryData<Publisher>(['publisher', String(publisher.id)], (old) => (old ? { ...old, testKeyCreatedAt, testKeyLastUsedAt: null } : old));
    void client.invalidateQueries({ queryKey: ['publishers'] });
  };
  const create = useSafeMutation({
    mutationFn: () => apiBody<NewKey>(path, { method: 'POST', body: {} }),
    onSuccess: (result) => {
      setConfirmingReplace(false);
      setTestKeyCreatedAt(result.keyCreatedAt);
      showKey(result.key);
    },
    gcTime: 0,
  });
  const revoke = useSafeMutation({
    mutationFn: () => api<null>(path, { method: 'DELETE' }),
    onSuccess: () => {
      setConfirmingRevoke(false);
      setTestKeyCreatedAt(null);
      showKey(undefined);
    },
  });
  const exists = Boolean(publisher.testKeyCreatedAt);

  return (
    <div className="key-panel" data-testid="test-key-panel">
      <h2>Test key (sandbox)</h2>
      <p className="help">
        A test key works before approval and whatever the platform&apos;s status. Its ad requests answer a fixed test ad, and nothing done
        with it is ever counted in your totals. Send the header <code>X-Pilot-Test-Answer: 204</code>, <code>429</code> or <code>503</code>{' '}
        to see how your server handles those answers. It is separate from the live key: making, replacing or revoking one never affects the
        other.
      </p>
      {key ? (
        <div className="new-key" role="status">
          <p className="warning">Copy this test key now: it is shown only once. Keep it on your server, as you would a live key.</p>
          <label>
            Your new test key
            <input className="key" readOnly value={key} data-testid="new-test-key" data-secret onFocus={(event) => event.target.select()} />
          </label>
          <CopyButton text={key} label="Copy test key" />
          <p>
            <button type="button" className="link-button" onClick={() => showKey(undefined)}>
              I have stored the test key; hide it
            </button>
          </p>
        </div>
      ) : (
        <p data-testid="test-key-state">
          {exists
            ? `A test key exists since ${formatDateTime(publisher.testKeyCreatedAt as string)}.`
            : 'This platform has no test key.'}
        </p>
      )}
      <div className="actions">
        {!exists ? (
          <button type="button" className="button" onClick={() => create.mutate()} disabled={create.isPending}>
            Create test key
          </button>
        ) : null}
        {exists && !confirmingReplace && !confirmingRevoke ? (
          <button type="button" className="button button-danger-outline" onClick={() => setConfirmingReplace(true)}>
            Replace test key…
          </button>
        ) : null}
        {exists && !confirmingRevoke && !confirmingReplace ? (
          <button type="button" className="button button-danger-outline" onClick={() => setConfirmingRevoke(true)}>
            Revoke test key…
          </button>
        ) : null}
      </div>
      {exists && confirmingReplace ? (
        <div className="confirm" role="group" aria-label="Confirm test key replacement">
          <p className="warning">The current test key will stop working immediately; the new one is shown once. The live key is not affected. Continue?</p>
          <button type="button" className="button button-danger" onClick={() => create.mutate()} disabled={create.isPending}>
            Yes, replace the test key
          </button>
          <button type="button" className="link-button" onClick={() => setConfirmingReplace(false)}>
            Cancel
          </button>
        </div>
      ) : null}
      {exists && confirmingRevoke ? (
        <div className="confirm" role="group" aria-label="Confirm test key revocation">
          <p className="warning">The test key will stop working immediately. The live key is not affected. Continue?</p>
          <button type="button" className="button button-danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
            Yes, revoke the test key
          </button>
          <button type="button" className="link-button" onClick={() => setConfirmingRevoke(false)}>
            Cancel
          </button>
        </div>
      ) : null}
      <ErrorMessage error={create.error ?? revoke.error} />
    </div>
  );
}
