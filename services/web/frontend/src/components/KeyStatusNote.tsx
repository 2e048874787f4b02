import type { Publisher } from '../types';
import { formatDateTime } from '../format';

/**
 * What the owner of a platform that is not approved learns about its server key: a
 * paused platform keeps its key, refused until approval; a rejection revoked it; otherwise none exists yet.
 */
export function keyStatusText(publisher: Pick<Publisher, 'status' | 'keyCreatedAt'>): string {
  if (publisher.status === 'paused') {
    return publisher.keyCreatedAt
      ? `Your server key (created ${formatDateTime(publisher.keyCreatedAt)}) is refused while the platform is paused. It is kept and works again, unchanged, once an administrator approves the platform; no new key is needed.`
      : 'No server key was generated before the pause. Once an administrator approves the platform again you can generate one.';
  }
  if (publisher.status === 'rejected') {
    return 'The rejection revoked any server key of this platform. Submit it again; once it is approved, generate a new key.';
  }
  return 'A server key can be generated once the platform is approved.';
}

export function KeyStatusNote({ publisher }: { publisher: Pick<Publisher, 'status' | 'keyCreatedAt'> }) {
  return (
    <p className="help" data-testid="key-status">
      {keyStatusText(publisher)}
    </p>
  );
}
