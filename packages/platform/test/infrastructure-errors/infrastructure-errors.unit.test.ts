import { expect } from 'chai';
import { asInfrastructureFault, isInfrastructureError, ServiceUnavailableError, withDeadline } from '../../src/infrastructure-errors';

function named(name: string, message = 'failed'): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

describe('infrastructure errors: isInfrastructureError', () => {
  it('recognises our own ServiceUnavailableError', () => {
    const error = new ServiceUnavailableError('redis');
    expect(error.message).to.equal('redis is unavailable');
    expect(error.dependency).to.equal('redis');
    expect(isInfrastructureError(error)).to.equal(true);
  });

  it('recognises MongoDB driver faults by name', () => {
    for (const name of ['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError', 'MongoPoolClearedError', 'MongoTopologyClosedError']) {
      expect(isInfrastructureError(named(name)), name).to.equal(true);
    }
  });

  it('recognises an operation past its deadline: the driver giving up, or the server stopping it (maxTimeMS)', () => {
    expect(isInfrastructureError(named('MongoOperationTimeoutError'))).to.equal(true);
    expect(isInfrastructureError(Object.assign(named('MongoServerError', 'operation exceeded time limit'), { code: 50 }))).to.equal(true);
  });

  it('recognises the class name even when the error name is generic', () => {
    class MongoNetworkError extends Error {}
    expect(isInfrastructureError(new MongoNetworkError('socket closed'))).to.equal(true);
  });

  it('recognises Redis, RabbitMQ and socket faults by message', () => {
    for (const message of [
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Connection is closed.',
      'Command timed out',
      'connect ECONNREFUSED 127.0.0.1:6379',
      'read ECONNRESET',
      'write EPIPE',
      'connect ETIMEDOUT 10.0.0.1:5672',
      'Operation `campaigns.find()` buffering timed out after 10000ms',
      'Channel closed',
    ]) {
      expect(isInfrastructureError(new Error(message)), message).to.equal(true);
    }
  });

  it('follows the cause chain', () => {
    expect(isInfrastructureError(new Error('could not load', { cause: named('MongoNetworkError') }))).to.equal(true);
  });

  it('does not take bugs and bad input for infrastructure faults', () => {
    for (const error of [
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      new Error('E11000 duplicate key error'),
      new Error('validation failed'),
      new Error('Command timed out while parsing input'),
      named('MongoServerError', 'unknown operator: $foo'),
    ]) {
      expect(isInfrastructureError(error), error.message).to.equal(false);
    }
    for (const value of [null, undefined, 'ECONNREFUSED', { name: 'MongoNetworkError', message: 'x' }]) {
      expect(isInfrastructureError(value), String(value)).to.equal(false);
    }
  });

  it('does not loop on an error that is its own cause', () => {
    const error = new Error('self') as Error & { cause?: unknown };
    error.cause = error;
    expect(isInfrastructureError(error)).to.equal(false);
  });
});

describe('infrastructure errors: withDeadline', () => {
  it('returns the result of work that settles in time', async () => {
    expect(await withDeadline(Promise.resolve(42), 100, 'mongo')).to.equal(42);
  });

  it('passes on the failure of work that fails in time', async () => {
    let failure: unknown;
    await withDeadline(Promise.reject(new Error('boom')), 100, 'mongo').catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('boom');
  });

  it('rejects with ServiceUnavailableError naming the dependency when work hangs', async () => {
    // The work never settles: only the deadline can end this test before mocha's timeout.
    let failure: unknown;
    await withDeadline(new Promise(() => undefined), 50, 'campaign').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect((failure as ServiceUnavailableError).message).to.equal('campaign did not answer within 50 ms');
    expect(isInfrastructureError(failure)).to.equal(true);
  });

  it('aborts the signal it gave the work at the deadline, so the work stops too', async () => {
    let given: AbortSignal | undefined;
    const failure = await withDeadline(
      (signal) => {
        given = signal;
        return new Promise(() => undefined);
      },
      20,
      'campaign',
    ).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect(given?.aborted).to.equal(true);
    expect(given?.reason).to.equal(failure);
  });

  it('runs work that takes no signal, and gives up on it at the deadline all the same', async () => {
    expect(await withDeadline(async () => 'answered', 50, 'redis')).to.equal('answered');
    const failure = await withDeadline(() => new Promise(() => undefined), 20, 'redis').catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect((failure as ServiceUnavailableError).message).to.equal('redis did not answer within 20 ms');
  });

  it('leaves the signal alone when the work settles in time', async () => {
    let given: AbortSignal | undefined;
    expect(await withDeadline(async (signal) => ((given = signal), 7), 50, 'campaign')).to.equal(7);
    expect(given?.aborted).to.equal(false);
  });
});

describe('infrastructure errors: asInfrastructureFault', () => {
  it('returns the result of a call that answers in time', async () => {
    expect(await asInfrastructureFault(async () => 'value', 100, 'redis', 'read')).to.equal('value');
  });

  it('turns any failure of the call into ServiceUnavailableError naming the dependency and what was done', async () => {
    const failure = await asInfrastructureFault(() => Promise.reject(new Error('socket closed')), 100, 'redis', 'key read model').catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect((failure as ServiceUnavailableError).message).to.equal('key read model: socket closed');
  });

  it('gives up on a call that hangs at the deadline', async () => {
    const failure = await asInfrastructureFault(() => new Promise(() => undefined), 20, 'redis', 'read').catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect((failure as Error).message).to.contain('20 ms');
  });
});
