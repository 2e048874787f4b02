/**
 * The page a test ad's button leads to (the click link of a sandbox allocation redirects here), and
 * the short guide the key panel links to: what the sandbox is and how a
 * publisher's server uses it.
 */
import { Link } from 'react-router-dom';

export function SandboxPage() {
  return (
    <section className="sandbox-page">
      <h1>This was a test ad</h1>
      <p>
        You opened the button of a test ad from the Publisher Pilot sandbox. No advertiser is behind it: a publisher&apos;s server asked for an
        ad with a <strong>test key</strong> to check its integration. Nothing done with a test ad is counted in any total.
      </p>
      <h2>The sandbox for publishers</h2>
      <ul>
        <li>
          The owner of a platform creates one test key on the platform&apos;s page in the workspace, before approval or at any time. It starts
          with <code>pilot_pk_test_</code>, is shown once, and can be revoked; the live key is separate and never affected.
        </li>
        <li>
          <code>GET /api/network/ad</code> with <code>Authorization: Bearer pilot_pk_test_…</code> answers a fixed test ad (marked{' '}
          <code>sponsored: true</code>, with the header <code>X-Pilot-Test: true</code>). Its delivery confirmation and click link answer as a
          live ad&apos;s would, and are never counted.
        </li>
        <li>
          The limit of 60 ad requests a minute applies to test keys as to live keys, on one window shared by the test keys of all your platforms.
        </li>
        <li>
          To test your error handling, send <code>X-Pilot-Test-Answer</code> with a test key: <code>204</code>, <code>429</code> or{' '}
          <code>503</code> on the ad request, <code>404</code> or <code>503</code> on a delivery confirmation, which then answer exactly that.
          Any other value is refused with 400 <code>invalid_test_answer</code>; a live key ignores the header.
        </li>
      </ul>
      <p>
        The machine-readable description of the network API is the <a href="/api/network/openapi.json">OpenAPI document</a>. Your platforms
        and their keys are in the <Link to="/workspace/publishers">workspace</Link>.
      </p>
    </section>
  );
}
