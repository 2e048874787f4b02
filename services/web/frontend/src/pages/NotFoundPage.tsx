import { Link } from 'react-router-dom';
import { usePageTitle } from '../hooks/page-title';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Go to the home page</Link>.
      </p>
    </section>
  );
}
