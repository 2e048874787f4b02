/**
 * What a platform's developer needs beside its keys: the base URL the service answers at (its
 * PUBLIC_BASE_URL, from the platform record) and where the integration is described.
 */
import { Link } from 'react-router-dom';
import type { Publisher } from '../types';

export function IntegrationFacts({ publisher }: { publisher: Pick<Publisher, 'apiBaseUrl'> }) {
  const base = publisher.apiBaseUrl ?? window.location.origin;
  return (
    <div className="key-panel" data-testid="integration-facts">
      <h2>Connecting your server</h2>
      <dl className="facts">
        <dt>Base URL</dt>
        <dd className="break">
          <code data-testid="api-base-url">{base}</code>
        </dd>
        <dt>Ad request</dt>
        <dd className="break">
          <code>GET {base}/api/network/ad?language=en</code>
        </dd>
        <dt>Guide</dt>
        <dd>
          <Link to="/guide">Publishers guide</Link> · <Link to="/sandbox">How the sandbox and the network API work</Link> ·{' '}
          <a href="/api/network/openapi.json" target="_blank" rel="noopener">
            OpenAPI description
          </a>
        </dd>
      </dl>
    </div>
  );
}
