import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

/**
 * Sends the parts as `text/csv` as they come, as fast as the client takes them. The first part is read
 * before anything is sent, so that its failure is still answered as a problem; a later failure, or the
 * client going away, ends the answer unfinished (the download fails, it is never cut short as if complete).
 */
export async function sendCsv(res: Response, parts: AsyncIterable<string>): Promise<void> {
  const iterator = parts[Symbol.asyncIterator]();
  const first = await iterator.next();
  res.type('text/csv');
  async function* all(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  await pipeline(Readable.from(all()), res).catch(() => res.destroy());
}
