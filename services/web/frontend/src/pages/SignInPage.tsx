/**
 * Sign-in through the messaging platform: ask for a code, open the bot link (or scan the QR code), press
 * Start in the bot (the link carries the code, so nobody types it) and Confirm in the bot's question;
 * this page polls the request until it is confirmed (then the workspace opens), cancelled in the bot or
 * expired (then it says so and offers a new code).
 */
import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { QRCodeSVG } from 'qrcode.react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { ApiError, apiBody } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { deepLinkAfterSignIn, forgetDeepLink } from '../hooks/deep-link';
import { usePageTitle } from '../hooks/page-title';
import { publicWords, usePublicLanguage } from '../public-words';
import { SESSION_KEY, useSession } from '../session';
import { noteSignedIn } from '../session-end';
import type { Session } from '../types';
import { TIME_ZONE_LABEL, formatHour } from '../format';

interface LoginRequest {
  requestId: string;
  code: string;
  botUrl: string;
  expiresAt: string;
}

interface LoginStatus {
  status: 'pending' | 'confirmed' | 'cancelled' | 'expired';
  account?: Session;
}

export const POLL_MS = 1500;

/** A poll answered 404: this browser no longer holds the request (its cookie was cleared): as good as expired. */
function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

export function SignInPage() {
  const language = usePublicLanguage();
  const words = publicWords(language);
  usePageTitle(words.signInTitle);
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
    // A person confirms in the messaging app, then comes back to this tab: it asks at once, not at its next poll.
    refetchOnWindowFocus: true,
  });
  const state = isGone(status.error) ? 'expired' : status.data?.status;

  useEffect(() => {
    if (state !== 'confirmed') return;
    void client.invalidateQueries({ queryKey: SESSION_KEY }).then(() => {
      noteSignedIn();
      forgetDeepLink();
      navigate(next, { replace: true });
    });
  }, [state, client, navigate, next]);

  if (session.data && state !== 'confirmed') return <Navigate to={next} replace />;

  return (
    <section className="signin" lang={language}>
      <h1>{words.signInHeading}</h1>
      <p>{words.signInIntro}</p>
      {!request || state === 'expired' || state === 'cancelled' ? (
        <>
          {state === 'expired' || state === 'cancelled' ? (
            <p className="error" role="alert" data-testid="signin-ended">
              {state === 'expired' ? words.expired : words.cancelled}
            </p>
          ) : null}
          <button type="button" className="button" onClick={() => login.mutate()} disabled={login.isPending} data-testid="signin-get-code">
            {state === 'expired' || state === 'cancelled' ? words.getNewCode : words.getCode}
          </button>
          <ErrorMessage error={login.error} />
        </>
      ) : (
        <div className="signin-request">
          <p>
            <a className="button" href={request.botUrl} target="_blank" rel="noopener noreferrer">
              {words.openBot}
            </a>
          </p>
          <p>{words.howItWorks}</p>
          <p aria-live="polite" data-testid="signin-status">
            {state === 'confirmed' ? words.confirmed : words.waiting}
          </p>
          <p className="help">{words.scan}</p>
          <QRCodeSVG value={request.botUrl} size={160} title={words.qrTitle} />
          <p className="help">
            {words.codeLabel} <strong className="code-small" data-testid="signin-code">{request.code}</strong>
          </p>
          <p className="help">{words.validUntil(`${formatHour(request.expiresAt)} ${TIME_ZONE_LABEL}`)}</p>
          {isGone(status.error) ? null : <ErrorMessage error={status.error} />}
        </div>
      )}
    </section>
  );
}
