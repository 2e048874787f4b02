import fs from 'node:fs';
import { expect } from 'chai';
import { GUIDE_FILE } from '../frontend/publishers-guide';
import { exampleAnswer, exampleCommand, SHOWN_HEADERS, testKeyProblem } from '../frontend/src/try-request';

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

  it('shows every answer header of the ad request the guide documents, in its spelling', () => {
    const guide = fs.readFileSync(GUIDE_FILE, 'utf8');
    const documented = new Set([...guide.matchAll(/\bRateLimit-[A-Za-z]+/g)].map((match) => match[0]));
    for (const header of ['Retry-After', 'X-Request-Id', 'Pilot-No-Fill-Reason', 'X-Pilot-Test', 'Cache-Control', 'WWW-Authenticate']) {
      expect(guide, header).to.contain(header);
      documented.add(header);
    }
    expect(documented.size).to.be.at.least(10);
    for (const header of documented) expect(SHOWN_HEADERS, header).to.include(header);
  });
});
