/**
 * Beside the keys: what the network could serve this platform now (GET .../demand): the active campaigns
 * of its format, other owners' only, per language, and the no-fill reason a live ad request would get, so
 * an owner whose first call answered 204 sees why.
 */
import { useQuery } from '@tanstack/react-query';
import { apiBody } from '../api';
import { formatCount } from '../format';
import { ErrorMessage } from './ErrorMessage';

interface Demand {
  format: 'bot' | 'channel';
  activeCampaigns: number;
  languages: Array<{ language: string; activeCampaigns: number }>;
  noFillReason: string;
}

const REASON_WORDS: Record<string, string> = {
  no_active_campaign: 'no campaign is active in the network at all',
  no_campaign_for_format: 'no active campaign is made for this type of platform',
  no_campaign_for_language: 'no active campaign targets the language asked for',
  own_campaigns_only: 'the only active campaigns of this type are your own, which are never served to your own platforms',
};

function languageName(code: string): string {
  if (code === 'all') return 'All languages (served whatever the language asked)';
  try {
    return `${new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code} (${code})`;
  } catch {
    return code;
  }
}

export function PlatformDemand({ publisherId }: { publisherId: number }) {
  const demand = useQuery({
    queryKey: ['publisher-demand', publisherId],
    queryFn: () => apiBody<Demand>(`/api/workspace/publishers/${publisherId}/demand`),
  });
  if (demand.error) return <ErrorMessage error={demand.error} />;
  if (!demand.data) return null;
  const { activeCampaigns, languages, noFillReason, format } = demand.data;
  return (
    <div className="key-panel" data-testid="platform-demand">
      <h2>What the network can serve you now</h2>
      {activeCampaigns === 0 ? (
        <p data-testid="demand-none">
          Nothing right now: a live ad request answers 204 with <code>Pilot-No-Fill-Reason: {noFillReason}</code> ({REASON_WORDS[noFillReason] ?? noFillReason}).
        </p>
      ) : (
        <>
          <p data-testid="demand-total">
            {formatCount(activeCampaigns)} active {activeCampaigns === 1 ? 'campaign' : 'campaigns'} for a {format}, by language:
          </p>
          <ul data-testid="demand-languages">
            {languages.map((entry) => (
              <li key={entry.language}>
                {languageName(entry.language)}: {formatCount(entry.activeCampaigns)}
              </li>
            ))}
          </ul>
          <p className="help">
            A request in another language answers 204 with <code>Pilot-No-Fill-Reason: {noFillReason}</code>
            {languages.some((entry) => entry.language === 'all') ? '' : ' (no campaign targets all languages)'}.
          </p>
        </>
      )}
    </div>
  );
}
