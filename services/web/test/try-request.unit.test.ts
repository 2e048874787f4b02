import { expect } from 'chai';
import { exampleAnswer, exampleCommand, testKeyProblem } from '../frontend/src/try-request';

describe('the platform page\'s test request', () => {
  it('sends only a test key: a live key or anything else is refused before a request is made', () => {
    expect(testKeyProblem(`pilot_pk_test_${'a'.repeat(40)}`)).to.equal(null);
    expect(testKeyProblem(`  pilot_pk_test_${'a'.repeat(40)} `)).to.equal(null);
    expect(testKeyProblem(`pilot_pk_${'a'.repeat(40)}`)).to.match(/live key/);
    expect(testKeyProblem('')).to.match(/Paste the test key/);
    expect(testKeyProblem('secret')).to.match(/not a key of this service/);
  });

  it('shows the ad request against the platform\'s base URL and an answer of the documented shape', () => {
    expect(exampleCommand('https://ads.example', 'pt-BR')).to.equal('curl -H "Authorization: Bearer $PILOT_KEY" "https://ads.example/api/network/ad?language=pt-BR"');
    const answer = JSON.parse(exampleAnswer('https://ads.example')) as Record<string, unknown>;
    expect(Object.keys(answer)).to.deep.equal(['campaign_id', 'title', 'text', 'button_text', 'image_url', 'click_url', 'delivery_token', 'expires_in', 'sponsored', 'billing']);
    expect(answer.click_url).to.match(/^https:\/\/ads\.example\/api\/network\/click\//);
    expect(answer.sponsored).to.equal(true);
  });
});
