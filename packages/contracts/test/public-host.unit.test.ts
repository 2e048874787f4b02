import { expect } from 'chai';
import { hostRefusalOf, publicHostProblem } from '../src/validation/public-host';

const refusalOf = (url: string) => hostRefusalOf(new URL(url).hostname);

describe('public host of a stored link', () => {
  it('accepts public names, international names and ports', () => {
    for (const url of ['https://example.com/', 'https://cdn.example.com:8443/a.png', 'https://пример.рф/', 'https://xn--80ak6aa92e.com/', 'https://localhost-shop.example/']) {
      expect(refusalOf(url), url).to.equal(null);
    }
  });

  it('refuses every IP literal, however the IPv4 or IPv6 address is spelled', () => {
    for (const url of [
      'http://2130706433/',
      'https://0x7f.1/',
      'https://0x7f000001/',
      'https://0177.0.0.1/',
      'https://127.1/',
      'https://0/',
      'https://0.0.0.0/',
      'https://10.0.0.1/',
      'https://172.31.255.255/',
      'https://192.168.0.1/',
      'https://100.64.0.1/',
      'https://169.254.169.254/',
      'https://93.184.216.34/',
      'https://[::1]/',
      'https://[::]/',
      'https://[0:0:0:0:0:0:0:1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[fd00:ec2::254]/',
      'https://[fc00::]/',
      'https://[fe80::abcd]/',
      'https://[64:ff9b::7f00:1]/',
      'https://[2606:4700::1111]/',
    ]) {
      expect(refusalOf(url), url).to.equal('ip_address_not_allowed');
    }
  });

  it('refuses localhost, its subdomains, single-label and reserved internal names', () => {
    for (const url of ['https://localhost/', 'https://LocalHost./', 'https://a.b.localhost/', 'https://metadata.google.internal/', 'https://instance-data/', 'https://nas.local/', 'https://box.lan/', 'https://gw.home.arpa/']) {
      expect(refusalOf(url), url).to.equal('private_host');
    }
  });

  it('words the problem with the field and a stable code', () => {
    expect(publicHostProblem('imageUrl', new URL('https://[::1]/i.png'))).to.deep.include({ field: 'imageUrl', code: 'ip_address_not_allowed' });
    expect(publicHostProblem('destinationUrl', new URL('https://localhost/'))).to.deep.include({ field: 'destinationUrl', code: 'private_host' });
    expect(publicHostProblem('destinationUrl', new URL('https://example.com/'))).to.equal(null);
  });
});
