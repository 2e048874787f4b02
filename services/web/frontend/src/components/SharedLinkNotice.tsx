import { Link } from 'react-router-dom';
import { usePublisherList } from '../hooks/workspace-lists';
import { otherClaims, sharedLinks, usernameOf } from '../publisher-link';
import type { Publisher } from '../types';

/** The most platforms one link can have been registered for that the notice reads (one per account at most). */
const CLAIMS_READ = 100;

/**
 * For an administrator: other accounts that registered the same link, which only one of them can own. The
 * service's search by the link's username finds them; the network's list is never read whole.
 */
export function SharedLinkNotice({ publisher }: { publisher: Publisher }) {
  const username = usernameOf(publisher.link) ?? publisher.link;
  const publishers = usePublisherList({ q: username }, { limit: CLAIMS_READ });
  const others = otherClaims(publisher, sharedLinks(publishers.items));
  if (others.length === 0) return null;
  return (
    <div className="warning" data-testid="shared-link">
      <p>
        The same link is also registered by another account:{' '}
        {others.map((claim, index) => (
          <span key={claim.id}>
            {index > 0 ? ', ' : ''}
            <Link to={`/workspace/publishers/${claim.id}`}>#{claim.id}</Link> of account {claim.ownerAccountId}
          </span>
        ))}
        .
      </p>
      <p>Only one account can own the bot or channel: check ownership before approving.</p>
    </div>
  );
}
