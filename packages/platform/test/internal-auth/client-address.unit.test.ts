import { expect } from 'chai';
import { addressLimitKey } from '../../src/internal-auth';

describe('the address a per-address limit counts a client under', () => {
  it('is an IPv4 address itself, also when it comes IPv4-mapped', () => {
    expect(addressLimitKey('203.0.113.9')).to.equal('203.0.113.9');
    expect(addressLimitKey('::ffff:203.0.113.9')).to.equal('203.0.113.9');
  });

  it('is the /64 of an IPv6 address, however it is written', () => {
    expect(addressLimitKey('2001:db8:1:2:aaaa::1')).to.equal('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:DB8:1:2:FFFF:FFFF:FFFF:FFFF')).to.equal('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:0db8:0001:0002::')).to.equal('2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8:1:3::1')).to.not.equal(addressLimitKey('2001:db8:1:2::1'));
  });

  it('leaves what is not an address as it is', () => {
    expect(addressLimitKey('unknown')).to.equal('unknown');
  });
});
