import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { DEAD_LINK_PAGE_POLICY, deadLinkPage, deadLinkText } from '../src/http/dead-link-page';

describe('the page of a dead click link', () => {
  it('says the true reason: unknown, expired, the campaign no longer running, the platform no longer showing offers', () => {
    expect(deadLinkText(404, 'token_not_found').heading).to.equal('This link is not valid');
    expect(deadLinkText(410, 'link_expired').heading).to.equal('This link has expired');
    expect(deadLinkText(410, 'link_expired').explanation).to.include('one hour');
    expect(deadLinkText(410, 'campaign_inactive').heading).to.equal('This offer has ended');
    expect(deadLinkText(410, 'campaign_inactive').explanation, 'a paused campaign is not an hour-old link').to.not.include('hour');
    expect(deadLinkText(410, 'publisher_inactive').explanation).to.not.include('hour');
  });

  it('is styled by its own style element, which its policy allows by hash and nothing else', () => {
    const page = deadLinkPage(410, 'campaign_inactive');
    const style = /<style>([^<]*)<\/style>/.exec(page)?.[1] ?? '';
    expect(style).to.include('max-width').and.include('prefers-color-scheme:dark');
    expect(DEAD_LINK_PAGE_POLICY).to.equal(
      `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(page).to.include('<h1>This offer has ended</h1>').and.not.match(/<script|\sstyle=/);
  });
});
