import { Link } from 'react-router-dom';
import { usePublisherList } from '../hooks/workspace-lists';
import { otherClaims, sharedLinks } from '../publisher-link';
import type { Publisher } from '../types';

/** For an administrator: other accounts that registered the same link, which only one of them can own. */
export function SharedLinkNotice({ publisher }: { publisher: Publisher }) {
  const publishers = usePublisherList();
  const others = otherClaims(publisher, sharedLinks(publishers.data?.items ?? []));
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
