import { expect } from 'chai';
import { sessionCookieName } from '../src/session-cookie';

describe('session cookie name', () => {
  it('carries the __Host- prefix on an https site', () => {
    expect(sessionCookieName('pilot_session', 'https://pilot.example')).to.equal('__Host-pilot_session');
    expect(sessionCookieName('__Host-pilot_session', 'https://pilot.example/')).to.equal('__Host-pilot_session');
  });

  it('keeps the plain name on an http site, where browsers refuse __Host- cookies', () => {
    expect(sessionCookieName('pilot_session', 'http://127.0.0.1:8080')).to.equal('pilot_session');
    expect(sessionCookieName('__Host-pilot_session', 'http://localhost:8080')).to.equal('pilot_session');
  });
});
