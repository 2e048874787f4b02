/**
 * Sign-in through the messaging platform: ask for a code, open the bot link (or scan the QR code) and
 * send the code to the bot; this page polls the request until it is confirmed (then the workspace opens)
 * or expired (then it says so and offers a new code).
 */
import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { QRCodeSVG } from 'qrcode.react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { ApiError, apiBody } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { deepLinkAfterSignIn, forgetDeepLink } from '../hooks/deep-link';
import { usePageTitle } from '../hooks/page-title';
import { SESSION_KEY, useSession } from '../session';
import type { Session } from '../types';

interface LoginRequest {
  requestId: string;
  code: string;
  botUrl: string;
  expiresAt: string;
}

interface LoginStatus {
  status: 'pending' | 'confirmed' | 'expired';
  account?: Session;
}

export const POLL_MS = 1500;

/** A poll answered 404: this browser no longer holds the request (its cookie was cleared): as good as expired. */
function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

export function SignInPage() {
  usePageTitle('Sign in');
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const client = useQueryClient();
  const next = deepLinkAfterSignIn(location.state);
  const login = useMutation({ mutationFn: () => apiBody<LoginRequest>('/api/auth/login', { method: 'POST', body: {} }) });
  const request = login.data;
  const status = useQuery({
    queryKey: ['login-status', request?.requestId],
    enabled: Boolean(request),
    queryFn: () => apiBody<LoginStatus>(`/api/auth/login/${encodeURIComponent(request?.requestId ?? '')}`),
    refetchInterval: (q) => (isGone(q.state.error) ? false : q.state.data?.status === 'pending' || !q.state.data ? POLL_MS : false),
    retry: (count, error) => !isGone(error) && count < 3,
    staleTime: 0,
  });
  const state = isGone(status.error) ? 'expired' : status.data?.status;

  useEffect(() => {
    if (state !== 'confirmed') return;
    void client.invalidateQueries({ queryKey: SESSION_KEY }).then(() => {
      forgetDeepLink();
      navigate(next, { replace: true });
    });
  }, [state, client, navigate, next]);

  if (session.data && state !== 'confirmed') return <Navigate to={next} replace />;

  return (
    <section className="signin">
      <h1>Sign in to the workspace</h1>
      <p>You sign in with your messaging-platform account: our bot confirms that this browser asked for it. No password is needed.</p>
      {!request || state === 'expired' ? (
        <>
          {state === 'expired' ? (
            <p className="error" role="alert">
              This sign-in code expired before it was confirmed. Get a new code and send it to the bot within 5 minutes.
            </p>
          ) : null}
          <button type="button" className="button" onClick={() => login.mutate()} disabled={login.isPending} data-testid="signin-get-code">
            {state === 'expired' ? 'Get a new code' : 'Get a sign-in code'}
          </button>
          <ErrorMessage error={login.error} />
        </>
      ) : (
        <div className="signin-request">
          <p>
            Your code: <strong className="code" data-testid="signin-code">{request.code}</strong>
          </p>
          <p>
            <a className="button" href={request.botUrl} target="_blank" rel="noopener noreferrer">
              Open the bot and send the code
            </a>
          </p>
          <p className="help">Or scan this QR code with your phone:</p>
          <QRCodeSVG value={request.botUrl} size={160} title="QR code of the bot link" />
          <p aria-live="polite" data-testid="signin-status">
            {state === 'confirmed' ? 'Confirmed. Opening the workspace…' : 'Waiting for the bot to confirm…'}
          </p>
          <p className="help">The code is valid until {new Date(request.expiresAt).toLocaleTimeString()}.</p>
          {isGone(status.error) ? null : <ErrorMessage error={status.error} />}
        </div>
      )}
    </section>
  );
}
