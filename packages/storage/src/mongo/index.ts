/**
 * One mongoose connection per service database. Commands are not buffered while disconnected, so a
 * MongoDB outage fails calls quickly (503) instead of queueing them; the driver reconnects by itself.
 * Every operation has a deadline the server is told about (see connectMongo), so work nobody waits for
 * any more does not run on in the database.
 */
import mongoose, { type Connection, type Model } from 'mongoose';
import { claimOnce } from './claim-once';

export { mongoose };
export type { Connection, FilterQuery, Model, PipelineStage } from 'mongoose';

export interface MongoOptions {
  url: string;
  dbName: string;
  serverSelectionTimeoutMS?: number;
  /**
   * The deadline of every operation (the driver's client-side operation timeout, `timeoutMS`): the driver
   * sends the time left as `maxTimeMS` with each command, so the server stops the work when the caller
   * stops waiting (FerretDB 1.24 stops find, aggregate and getMore; inserts and updates still work with
   * it), and fails the call with MongoOperationTimeoutError (a fault of infrastructure: 503). A cursor's
   * whole iteration counts as one operation unless it is opened with `timeoutMode: 'iteration'`. Default
   * 10 s: the gateway's upstream timeout, after which nobody waits for the answer.
   */
  operationTimeoutMS?: number;
}

/**
 * Options for a cursor that walks a whole collection of `collection` (a migration, a repair): the
 * operation deadline (connectMongo's) then applies to each batch, not to the whole walk, which grows with
 * the data. Nothing for a client without a deadline (the driver refuses the mode there).
 */
export function wholeCollectionScan(collection: { timeoutMS?: number }): { timeoutMode?: 'iteration' } {
  return collection.timeoutMS === undefined ? {} : { timeoutMode: 'iteration' };
}

/** wholeCollectionScan for a walk through a model (a cursor of `model.find(...)`). */
export function wholeModelScan(model: Pick<Model<never>, 'db'>): { timeoutMode?: 'iteration' } {
  return wholeCollectionScan(model.db.getClient().options);
}

export async function connectMongo({ url, dbName, serverSelectionTimeoutMS = 2000, operationTimeoutMS = 10_000 }: MongoOptions): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    bufferCommands: false,
    // Indexes are created by each repository's ensureIndexes at start, collections by their first write.
    autoIndex: false,
    autoCreate: false,
    serverSelectionTimeoutMS,
    timeoutMS: operationTimeoutMS,
    maxPoolSize: 20,
    // FerretDB and a single-node MongoDB both reject retryable writes without a replica set.
    retryWrites: false,
  });
  connection.on('error', () => undefined);
  await connection.asPromise();
  return connection;
}

export async function pingMongo(connection: Connection): Promise<void> {
  if (connection.readyState !== 1 || !connection.db) throw new Error('MongoDB is not connected');
  await connection.db.admin().command({ ping: 1 });
}

export { isDuplicateKeyError } from './errors';

export { claimOnce } from './claim-once';

/**
 * Inserts a document under the next free positive integer `_id` of a collection whose records are never
 * deleted, so an id is never reused and two replicas never hand out the same one: the unique `_id` decides,
 * a loser retries with the next number. `from`, when given (the caller's last id plus one), is where the
 * search starts, so a process asks for the highest id once rather than on every insert.
 */
export async function insertWithNextId<T extends { _id: number }>(model: Model<T>, build: (id: number) => Omit<T, '_id'>, maxAttempts = 50, from?: number): Promise<number> {
  let candidate = from;
  if (candidate === undefined) {
    const last = await model.findOne({}, { _id: 1 }).sort({ _id: -1 }).lean<{ _id: unknown }>();
    candidate = typeof last?._id === 'number' ? last._id + 1 : 1;
  }
  for (let attempt = 0; attempt < maxAttempts; attempt += 1, candidate += 1) {
    if (await claimOnce(model, candidate as T['_id'], build(candidate))) return candidate;
  }
  throw new Error(`no free id in ${model.collection.collectionName} after ${maxAttempts} attempts`);
}

/** The ids of one collection handed out by insertWithNextId, remembering where the next search starts. */
export class NextIds<T extends { _id: number }> {
  private next: number | undefined;

  constructor(
    private readonly model: Model<T>,
    private readonly maxAttempts = 200,
  ) {}

  async insert(build: (id: number) => Omit<T, '_id'>): Promise<number> {
    const id = await insertWithNextId(this.model, build, this.maxAttempts, this.next);
    this.next = id + 1;
    return id;
  }
}

export * from './retention';
export * from './models';
export * from './each-limited';
export * from './account-slots';
export * from './keyset';
