/**
 * A failed load that may succeed later (the service unreachable, 5xx, 429): the failure in words, a
 * "Try again" button, and retries by itself with backoff (the server's Retry-After first, then 2, 4, 8 ...
 * up to 30 seconds), saying when the next attempt is.
 */
import { useEffect, useRef, useState } from 'react';
import { ApiError, describeError } from '../api';
import { isRetryable, retryDelayMs } from '../retry';

export function RetryPanel({ error, retry, retrying }: { error: unknown; retry: () => void; retrying: boolean }) {
  const [attempt, setAttempt] = useState(0);
  const [secondsLeft, setSecondsLeft] = useState<number | null>(null);
  const retryable = isRetryable(error);
  const retryAfter = error instanceof ApiError ? error.retryAfter : null;
  const latestRetry = useRef(retry);
  latestRetry.current = retry;

  useEffect(() => {
    if (!retryable || retrying) return;
    const due = Date.now() + retryDelayMs(attempt, retryAfter);
    const tick = () => setSecondsLeft(Math.max(0, Math.ceil((due - Date.now()) / 1000)));
    tick();
    const ticker = setInterval(tick, 1000);
    const timer = setTimeout(() => {
      setAttempt((count) => count + 1);
      latestRetry.current();
    }, due - Date.now());
    return () => {
      clearInterval(ticker);
      clearTimeout(timer);
    };
  }, [retryable, retrying, attempt, retryAfter]);

  return (
    <div className="retry-panel" role="alert" data-testid="retry-panel">
      <p className="error">{describeError(error)}</p>
      {retryable ? (
        <p className="help" aria-live="off">
          {retrying ? 'Trying again…' : secondsLeft !== null ? `Trying again by itself in ${secondsLeft} s.` : null}
        </p>
      ) : null}
      <button type="button" className="button" onClick={retry} disabled={retrying}>
        Try again
      </button>
    </div>
  );
}
