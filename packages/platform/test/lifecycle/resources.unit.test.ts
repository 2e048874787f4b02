import { expect } from 'chai';
import { Resources } from '../../src/lifecycle';

describe('lifecycle: Resources', () => {
  it('closes what was opened in the reverse order, once', async () => {
    const closed: string[] = [];
    const resources = new Resources();
    expect(resources.add('mongo', (name) => void closed.push(name))).to.equal('mongo');
    resources.add('bus', async (name) => void closed.push(name));
    resources.add('server', (name) => void closed.push(name));
    await resources.closeAll();
    await resources.closeAll();
    expect(closed).to.deep.equal(['server', 'bus', 'mongo']);
  });

  it('runs every closer when one fails, then throws the first failure', async () => {
    const closed: string[] = [];
    const resources = new Resources();
    resources.add('mongo', (name) => void closed.push(name));
    resources.add('bus', () => Promise.reject(new Error('bus close failed')));
    resources.add('redis', () => {
      throw new Error('redis close failed');
    });
    const failure = await resources.closeAll().catch((error: unknown) => error);
    expect((failure as Error).message).to.equal('redis close failed');
    expect(closed).to.deep.equal(['mongo']);
  });

  it('closes what a failed start had opened and passes the start failure on', async () => {
    const closed: string[] = [];
    const resources = new Resources();
    const failure = await resources
      .openOrClose(async () => {
        resources.add('mongo', (name) => void closed.push(name));
        resources.add('bus', () => Promise.reject(new Error('close failed too')));
        throw new Error('broker unreachable');
      })
      .catch((error: unknown) => error);
    expect((failure as Error).message).to.equal('broker unreachable');
    expect(closed).to.deep.equal(['mongo']);
  });

  it('gives the result of a start that succeeds and closes nothing', async () => {
    const closed: string[] = [];
    const resources = new Resources();
    const result = await resources.openOrClose(async () => resources.add('server', (name) => void closed.push(name)));
    expect(result).to.equal('server');
    expect(closed).to.deep.equal([]);
  });
});
