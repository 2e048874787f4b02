import { expect } from 'chai';
import { bodyRefusal } from '../src/domain/body-limits';

describe('gateway body limits', () => {
  it('refuses a body on GET and HEAD, declared by length or by chunked encoding', () => {
    expect(bodyRefusal('GET', '10', undefined, 1000)).to.equal('body_not_allowed');
    expect(bodyRefusal('head', undefined, 'chunked', 1000)).to.equal('body_not_allowed');
  });

  it('lets a GET without a body, or with an empty one, through', () => {
    expect(bodyRefusal('GET', undefined, undefined, 1000)).to.equal(null);
    expect(bodyRefusal('GET', '0', undefined, 1000)).to.equal(null);
  });

  it('refuses a declared body over the limit and accepts one at the limit', () => {
    expect(bodyRefusal('POST', '1001', undefined, 1000)).to.equal('payload_too_large');
    expect(bodyRefusal('POST', '1000', undefined, 1000)).to.equal(null);
  });
});
