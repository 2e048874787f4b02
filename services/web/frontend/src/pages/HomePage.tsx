import { Link } from 'react-router-dom';
import { PlacementSlot } from '../components/PlacementSlot';
import { usePageTitle } from '../hooks/page-title';

export function HomePage() {
  usePageTitle(null);
  return (
    <>
      <section className="hero">
        <h1>Sponsored creatives for approved bots and channels</h1>
        <p>
          Publisher pilot connects advertisers with reviewed publishers on a messaging platform. Publishers request one creative at a time
          from their own server, send it labelled as sponsored, and confirm the delivery. Nothing is billed: every delivery is a
          non-billable pilot event.
        </p>
        <p>
          <Link className="button" to="/signin">
            Sign in to the workspace
          </Link>
        </p>
      </section>
      <section>
        <h2>How it works</h2>
        <ol className="steps">
          <li>Advertisers create a campaign as a draft and submit it for review.</li>
          <li>An administrator reviews it, approves it, and activates it separately.</li>
          <li>Publishers register their bot or channel and pass an ownership review.</li>
          <li>After approval the owner generates a server key; it stays on the publisher's server.</li>
          <li>The publisher's server asks for a creative, sends it, and confirms the delivery.</li>
          <li>Each creative carries a click link that opens the advertiser's destination.</li>
        </ol>
      </section>
      <section>
        <h2>What the totals mean</h2>
        <p>
          The workspace shows three totals: ad requests, confirmed deliveries and clicked links. Confirmations are reported by publishers
          and clicks may include automated access, so the totals are not billable impressions, unique people or conversions.
        </p>
      </section>
      <PlacementSlot slot="home-feature" />
    </>
  );
}
