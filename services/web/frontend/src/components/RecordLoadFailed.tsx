/**
 * A record's page whose record did not load: a heading that names it, why in words (one that is missing
 * and one the account may not open read the same, as the service answers both 404), and the way back to
 * its list.
 */
import { Link } from 'react-router-dom';
import { ApiError } from '../api';
import { ErrorMessage } from './ErrorMessage';

const KINDS = {
  campaign: { one: 'Campaign', list: 'Campaigns', path: '/workspace/campaigns' },
  publisher: { one: 'Platform', list: 'Platforms', path: '/workspace/publishers' },
} as const;

export function RecordLoadFailed({ kind, id, error }: { kind: keyof typeof KINDS; id: string; error: unknown }) {
  const words = KINDS[kind];
  const missing = error instanceof ApiError && error.status === 404;
  return (
    <section data-testid="record-load-failed">
      <p>
        <Link to={words.path}>← {words.list}</Link>
      </p>
      <h1>{missing ? `${words.one} #${id} not found` : `${words.one} #${id} could not be loaded`}</h1>
      {missing ? (
        <p>
          There is no {words.one.toLowerCase()} #{id} that this account can open: it may be another account&apos;s, or the address may be mistyped.{' '}
          <Link to={words.path}>Go to the {words.list.toLowerCase()}</Link>.
        </p>
      ) : (
        <ErrorMessage error={error} />
      )}
    </section>
  );
}
