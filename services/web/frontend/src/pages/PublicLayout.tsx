import { useEffect } from 'react';
import { Link, Outlet, useLocation } from 'react-router-dom';
import { useSession } from '../session';

export function PublicLayout() {
  const session = useSession();
  const location = useLocation();
  const turkish = location.pathname === '/tr';
  useEffect(() => {
    document.documentElement.lang = turkish ? 'tr' : 'en';
  }, [turkish]);
  return (
    <div className="page">
      <a className="skip-link" href="#main">
        {turkish ? 'İçeriğe geç' : 'Skip to content'}
      </a>
      <header className="site-header">
        <Link to="/" className="brand">
          Publisher pilot
        </Link>
        <nav aria-label={turkish ? 'Site' : 'Site'}>
          <Link to="/">Home</Link>
          <Link to="/tr" lang="tr">
            Türkçe
          </Link>
          {session.data ? <Link to="/workspace">Workspace</Link> : <Link to="/signin">Sign in</Link>}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
