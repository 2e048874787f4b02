import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

/**
 * Sends the parts as `text/csv` as they come, as fast as the client takes them. The first part is read
 * before anything is sent, so that its failure is still answered as a problem; a later failure ends the
 * answer unfinished (the download fails, it is never cut short as if complete) and is thrown on, to be
 * logged. A client that goes away stops the reading.
 */
export async function sendCsv(res: Response, parts: AsyncIterable<string>): Promise<void> {
  const iterator = parts[Symbol.asyncIterator]();
  const first = await iterator.next();
  res.type('text/csv');
  let failure: unknown;
  async function* all(): AsyncGenerator<string> {
    try {
      for (let next = first; !next.done; next = await iterator.next()) yield next.value;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      await iterator.return?.();
    }
  }
  await pipeline(Readable.from(all()), res).catch(() => res.destroy());
  if (failure !== undefined) throw failure;
}
