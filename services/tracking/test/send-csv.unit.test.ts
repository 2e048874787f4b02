import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { sendCsv } from '../src/http/send-csv';

/** An app whose one route sends these parts as the CSV, answering 503 when sendCsv throws. */
function appSending(parts: () => AsyncGenerator<string>) {
  const app = express();
  app.get('/csv', (_req, res) => {
    sendCsv(res, parts()).catch(() => res.status(503).json({ code: 'unavailable' }));
  });
  return app;
}

describe('tracking: a CSV sent as its parts come', () => {
  it('sends every part in order as text/csv', async () => {
    const answer = await request(
      appSending(async function* () {
        yield 'a,b\r\n';
        yield '1,2\r\n';
        yield '3,4\r\n';
      }),
    )
      .get('/csv')
      .expect(200);
    expect(answer.headers['content-type']).to.match(/^text\/csv/);
    expect(answer.text).to.equal('a,b\r\n1,2\r\n3,4\r\n');
  });

  it('answers a failure of the first part as an error, with nothing of the CSV sent', async () => {
    const answer = await request(
      // eslint-disable-next-line require-yield
      appSending(async function* () {
        throw new Error('the store is unavailable');
      }),
    ).get('/csv');
    expect(answer.status).to.equal(503);
    expect(answer.body).to.deep.equal({ code: 'unavailable' });
  });

  it('ends the answer unfinished when a later part fails: the download fails, it is not cut short as if complete', async () => {
    const failure = await request(
      appSending(async function* () {
        yield 'a,b\r\n';
        throw new Error('the store is unavailable');
      }),
    )
      .get('/csv')
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(failure, 'the client sees the answer broken off').to.be.instanceOf(Error);
  });
});
