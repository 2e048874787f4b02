import { expect } from 'chai';
import { withSiteOrigin } from '../frontend/src/guide-origin';

describe('the guide on the site names the site\'s own origin', () => {
  it('replaces the example origin and {base_url}, and nothing else', () => {
    const html = '<code>export PILOT=https://pilot.example KEY=pilot_pk_...</code> <p>{base_url}/guide/errors#x</p> https://example.com/landing';
    expect(withSiteOrigin(html, 'https://ads.example.org')).to.equal(
      '<code>export PILOT=https://ads.example.org KEY=pilot_pk_...</code> <p>https://ads.example.org/guide/errors#x</p> https://example.com/landing',
    );
  });
});
