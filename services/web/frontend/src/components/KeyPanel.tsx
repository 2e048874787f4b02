/**
 * Key generation: the key is shown once, only in this component's memory (never in browser storage or a
 * URL), with a copy button and a warning that it belongs on the publisher's server. Rotating an existing
 * key asks for confirmation first, with how long the replaced key keeps working (at once by default, or a
 * grace period for a rolling deploy); a previous key still working is shown with its expiry and a button
 * that ends it now.
 */
import { useEffect, useRef, useState } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQueryClient } from '@tanstack/react-query';
import { api, apiBody } from '../api';
import { ErrorMessage } from './ErrorMessage';
import { LeaveGuard } from './LeaveGuard';
import type { Publisher } from '../types';
import { formatDateTime } from '../format';
import { CopyButton } from './CopyButton';

interface NewKey {
  key: string;
  keyCreatedAt: string;
  previousKeyExpiresAt: string | null;
}

/** How long the replaced key may keep working, as offered (API.md: 0 to 86400 seconds). */
const GRACE_CHOICES: ReadonlyArray<{ seconds: number; label: string }> = [
  { seconds: 0, label: 'Not at all: it stops now' },
  { seconds: 15 * 60, label: '15 minutes' },
  { seconds: 60 * 60, label: '1 hour' },
  { seconds: 24 * 60 * 60, label: '24 hours' },
];

export function KeyPanel({ publisher }: { publisher: Publisher }) {
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  // The key in the component's own state: hiding it drops the leave guard within the click itself, where the
  // mutation's reset reaches the component through the query client's batched notifications, after it.
  const [key, setKey] = useState<string | undefined>();
  const [graceSeconds, setGraceSeconds] = useState(0);
  const generate = useSafeMutation({
    mutationFn: () =>
      apiBody<NewKey>(`/api/workspace/publishers/${publisher.id}/keys`, { method: 'POST', body: graceSeconds > 0 ? { previousKeyGraceSeconds: graceSeconds } : {} }),
    onSuccess: (result) => {
      setKey(result.key);
      setConfirming(false);
      client.setQueryData<Publisher>(['publisher', String(publisher.id)], (old) =>
        old ? { ...old, keyCreatedAt: result.keyCreatedAt, keyLastUsedAt: null, previousKeyExpiresAt: result.previousKeyExpiresAt } : old,
      );
      void client.invalidateQueries({ queryKey: ['publishers'] });
    },
    gcTime: 0,
  });
  const rotating = Boolean(publisher.keyCreatedAt);
  // Focus follows the step: the confirmation when it opens, the button again when it
  // is cancelled, the new key when it is shown; never left on a button that just disappeared.
  const rotateButton = useRef<HTMLButtonElement>(null);
  const confirmBox = useRef<HTMLDivElement>(null);
  const keyField = useRef<HTMLInputElement>(null);
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirming) confirmBox.current?.focus();
    else if (wasConfirming.current && !key) rotateButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming, key]);
  useEffect(() => {
    if (key) keyField.current?.focus();
  }, [key]);

  return (
    <div className="key-panel">
      <LeaveGuard
        when={Boolean(key)}
        message="The new key is shown only now: once you leave this page it cannot be shown again. Have you copied it?"
        leaveLabel="Leave without the key"
      />
      <h2>Server API key</h2>
      {key ? (
        <div className="new-key" role="status">
          <p className="warning">
            Copy this key now: it is shown only once and cannot be shown again. Keep it on your server only; never put it in browser code,
            links, public logs or screenshots.
          </p>
          <label>
            Your new key
            <input ref={keyField} className="key" readOnly value={key} data-testid="new-key" data-secret onFocus={(event) => event.target.select()} />
          </label>
          <CopyButton text={key} label="Copy key" />
          <p>
            <button type="button" className="link-button" onClick={() => setKey(undefined)}>
              I have stored the key; hide it
            </button>
          </p>
        </div>
      ) : (
        <>
          <p>
            {rotating
              ? `A key exists since ${formatDateTime(publisher.keyCreatedAt as string)}. Generating a new one stops the current key at once.`
              : 'Generate the key your server sends with every ad request.'}
          </p>
          {rotating && !confirming ? (
            <button ref={rotateButton} type="button" className="button button-danger-outline" onClick={() => setConfirming(true)}>
              Rotate key…
            </button>
          ) : null}
          {rotating && confirming ? (
            <div
              ref={confirmBox}
              tabIndex={-1}
              className="confirm"
              role="group"
              aria-label="Confirm rotation"
              onKeyDown={(event) => {
                if (event.key === 'Escape') setConfirming(false);
              }}
            >
              <label className="field">
                Keep the current key working
                <select value={graceSeconds} onChange={(event) => setGraceSeconds(Number(event.target.value))} data-testid="previous-key-grace">
                  {GRACE_CHOICES.map((choice) => (
                    <option key={choice.seconds} value={choice.seconds}>
                      {choice.label}
                    </option>
                  ))}
                </select>
              </label>
              <p className="warning">
                {graceSeconds > 0
                  ? 'The current key keeps working for the time chosen, then stops: deploy the new key before then. Continue?'
                  : 'The current key will stop working immediately. Continue?'}
              </p>
              <button type="button" className="button button-danger" onClick={() => generate.mutate()} disabled={generate.isPending}>
                Yes, rotate the key
              </button>
              <button type="button" className="link-button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          ) : null}
          {!rotating ? (
            <button type="button" className="button" onClick={() => generate.mutate()} disabled={generate.isPending}>
              Generate key
            </button>
          ) : null}
        </>
      )}
      <ErrorMessage error={generate.error} />
      <PreviousKeyNote publisher={publisher} />
    </div>
  );
}

/** The previous key while it still works: until when, and a button that ends it now. */
function PreviousKeyNote({ publisher }: { publisher: Publisher }) {
  const client = useQueryClient();
  const end = useSafeMutation({
    mutationFn: () => api(`/api/workspace/publishers/${publisher.id}/keys/previous`, { method: 'DELETE' }),
    onSuccess: () => {
      client.setQueryData<Publisher>(['publisher', String(publisher.id)], (old) => (old ? { ...old, previousKeyExpiresAt: null } : old));
      void client.invalidateQueries({ queryKey: ['publisher', String(publisher.id)] });
      void client.invalidateQueries({ queryKey: ['audit'] });
    },
  });
  if (!publisher.previousKeyExpiresAt) return null;
  return (
    <div className="previous-key" data-testid="previous-key">
      <p>
        The previous key keeps working until {formatDateTime(publisher.previousKeyExpiresAt)}, so servers not yet deployed with the new key are
        still answered.
      </p>
      <button type="button" className="button button-danger-outline" onClick={() => end.mutate()} disabled={end.isPending}>
        End the previous key now
      </button>
      <ErrorMessage error={end.error} />
    </div>
  );
}
