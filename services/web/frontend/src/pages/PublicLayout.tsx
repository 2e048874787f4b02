import { useEffect } from 'react';
import { Link, Outlet } from 'react-router-dom';
import { publicWords, usePublicLanguage } from '../public-words';
import { useSession } from '../session';

export function PublicLayout() {
  const session = useSession();
  const language = usePublicLanguage();
  const words = publicWords(language);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  return (
    <div className="page">
      <a className="skip-link" href="#main">
        {words.skip}
      </a>
      <header className="site-header">
        <Link to={words.homePath} className="brand">
          Publisher pilot
        </Link>
        <nav aria-label={words.siteNav}>
          <Link to={words.homePath}>{words.home}</Link>
          <Link to="/guide">{words.guide}</Link>
          <Link to={words.otherLanguagePath} lang={words.otherLanguageCode}>
            {words.otherLanguage}
          </Link>
          {session.data ? <Link to="/workspace">{words.workspace}</Link> : <Link to={words.signInPath}>{words.signIn}</Link>}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
