import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api';
import { BotMessagesMenu } from '../components/BotMessagesMenu';
import { ErrorMessage } from '../components/ErrorMessage';
import { PlacementSlot } from '../components/PlacementSlot';
import { RetryPanel } from '../components/RetryPanel';
import { forgetDeepLink, rememberDeepLink } from '../hooks/deep-link';
import { useReviewQueue } from '../hooks/review-queue';
import { SESSION_KEY, useSession } from '../session';
import { noteSessionEnd, signedOutOnPurpose } from '../session-end';
import { formatCount } from '../format';

export function WorkspaceLayout() {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const queue = useReviewQueue(Boolean(session.data?.admin));
  const logout = useMutation({
    mutationFn: () => api<void>('/api/auth/logout', { method: 'POST' }),
    onSuccess: () => {
      noteSessionEnd('signed-out');
      forgetDeepLink();
      client.clear();
      client.setQueryData(SESSION_KEY, null);
      navigate('/signin', { replace: true });
    },
  });

  if (session.isPending)
    return (
      <p className="loading" role="status">
        Loading…
      </p>
    );
  if (session.isError)
    return (
      <main className="page">
        <h1>Workspace</h1>
        <RetryPanel error={session.error} retry={() => void session.refetch()} retrying={session.isFetching} />
      </main>
    );
  if (!session.data) {
    // The null session of a sign-out may render here before onSuccess's navigation does: the page it was on
    // is then not a deep link to come back to.
    if (signedOutOnPurpose()) return <Navigate to="/signin" replace />;
    const from = `${location.pathname}${location.search}`;
    rememberDeepLink(from);
    return <Navigate to="/signin" replace state={{ from }} />;
  }
  const account = session.data;

  return (
    <div className="page workspace">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <NavLink to="/workspace" end className="brand">
          Publisher pilot
        </NavLink>
        <nav aria-label="Workspace">
          <NavLink to="/workspace" end>
            Dashboard
          </NavLink>
          <NavLink to="/workspace/campaigns">Campaigns</NavLink>
          <NavLink to="/workspace/publishers">Platforms</NavLink>
          <NavLink to="/workspace/report">Report</NavLink>
          <NavLink to="/workspace/audit">Audit</NavLink>
          {account.admin ? (
            <NavLink to="/workspace/review" data-testid="nav-review">
              Review{queue.loaded ? ` (${formatCount(queue.campaigns.items.length + queue.platforms.items.length)}${queue.campaigns.hasMore || queue.platforms.hasMore ? '+' : ''})` : ''}
            </NavLink>
          ) : null}
          {account.admin ? <NavLink to="/workspace/placements">Placements</NavLink> : null}
        </nav>
        <div className="account" data-testid="account">
          <span>{account.displayName || `Account ${account.accountId}`}</span>
          {account.admin ? <span className="badge badge-admin">Administrator</span> : null}
          <BotMessagesMenu admin={account.admin} />
          <button type="button" className="link-button" onClick={() => logout.mutate()} disabled={logout.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <ErrorMessage error={logout.error} />
      <PlacementSlot key={location.pathname} slot="workspace-top" />
      <main id="main" tabIndex={-1}>
        <Outlet context={account} />
      </main>
    </div>
  );
}
