/**
 * One mongoose connection per service database. Commands are not buffered while disconnected, so a
 * MongoDB outage fails calls quickly (503) instead of queueing them; the driver reconnects by itself.
 * Every operation has a deadline the server is told about (see connectMongo), so work nobody waits for
 * any more does not run on in the database.
 */
import { counterIn, type Registry } from '@pilot/platform';
import mongoose, { type Connection, type Model } from 'mongoose';

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
  /**
   * The service's metrics: every command sent to the store counts in `pilot_store_commands_total{command}`
   * (the driver's command monitoring), what each operation costs the store.
   */
  registry?: Registry;
}

/** Counts the commands the client sends, by name (find, insert, update, findAndModify, aggregate, ...). */
function countCommands(connection: Connection, registry: Registry): void {
  const commands = counterIn(registry, 'pilot_store_commands_total', 'Commands sent to the store (MongoDB / FerretDB), by command name', ['command']);
  connection.getClient().on('commandStarted', (started) => commands.inc({ command: started.commandName }));
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

export async function connectMongo({ url, dbName, serverSelectionTimeoutMS = 2000, operationTimeoutMS = 10_000, registry }: MongoOptions): Promise<Connection> {
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
    monitorCommands: registry !== undefined,
  });
  connection.on('error', () => undefined);
  await connection.asPromise();
  if (registry) countCommands(connection, registry);
  return connection;
}

export async function pingMongo(connection: Connection): Promise<void> {
  if (connection.readyState !== 1 || !connection.db) throw new Error('MongoDB is not connected');
  await connection.db.admin().command({ ping: 1 });
}

export { isDuplicateKeyError } from './errors';

export { claimOnce } from './claim-once';

export * from './id-counter';
export * from './retention';
export * from './models';
export * from './each-limited';
export * from './account-counts';
export * from './keyset';
