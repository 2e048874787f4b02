import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { sendCsv } from '../src/http/send-csv';

/** An app whose one route sends these parts as the CSV, answering 503 when sendCsv throws before sending (the failures it throws in `failures`). */
function appSending(parts: () => AsyncGenerator<string>, failures: unknown[] = []) {
  const app = express();
  app.get('/csv', (_req, res) => {
    sendCsv(res, parts()).catch((error: unknown) => {
      failures.push(error);
      if (!res.headersSent) res.status(503).json({ code: 'unavailable' });
    });
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
    const failures: unknown[] = [];
    const failure = await request(
      appSending(async function* () {
        yield 'a,b\r\n';
        throw new Error('the store is unavailable');
      }, failures),
    )
      .get('/csv')
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(failure, 'the client sees the answer broken off').to.be.instanceOf(Error);
    expect(failures.map((error) => (error as Error).message), 'the failure is thrown on, to be logged').to.deep.equal(['the store is unavailable']);
  });

  it('stops reading the parts when the client goes away', async () => {
    let finished = false;
    let read = 0;
    const app = appSending(async function* () {
      try {
        for (;;) {
          read += 1;
          yield `${'x'.repeat(64 * 1024)}\r\n`;
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      } finally {
        finished = true;
      }
    });
    const server = app.listen(0);
    try {
      const { port } = server.address() as { port: number };
      const controller = new AbortController();
      const answer = await fetch(`http://127.0.0.1:${port}/csv`, { signal: controller.signal });
      await answer.body!.getReader().read();
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(finished, 'the parts are closed').to.equal(true);
      const readWhenClosed = read;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(read).to.equal(readWhenClosed);
    } finally {
      server.close();
    }
  });
});
