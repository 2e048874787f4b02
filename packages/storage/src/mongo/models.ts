/**
 * The mongoose model layer every service builds its collections on: one `Schema` per
 * collection, typed by the document as stored, with its indexes declared on the schema and created by the
 * owning repository's `ensureIndexes` at start (never behind its back: autoIndex and autoCreate are off).
 *
 * A document written through a model holds exactly the fields the repository gives it (docs/storage.md):
 * - no `__v` (versionKey off), no timestamps, no `id` virtual;
 * - `_id` is declared with the type the collection keys by (a string or a number), so mongoose never adds
 *   or casts to an ObjectId;
 * - a field the schema does not declare fails the write (`strict: 'throw'`) instead of being dropped;
 * - empty objects are kept (`minimize` off).
 * Reads are `lean()`: plain objects, no documents built.
 */
import { Schema, type Connection, type IndexDefinition, type IndexOptions, type Model, type SchemaDefinition } from 'mongoose';

/** A field stored as given: any value, nested documents and arrays included (event payloads, states). */
export const Mixed = Schema.Types.Mixed;

/** What every schema of the project is built with (see above). */
export const STORED_AS_WRITTEN = {
  versionKey: false,
  strict: 'throw',
  minimize: false,
  id: false,
  autoIndex: false,
  autoCreate: false,
  timestamps: false,
} as const;

/** An index of a schema: its keys and options, as `Schema.index` takes them. */
export type IndexSpec = [IndexDefinition, IndexOptions?];

/** A schema with the project's options and the given indexes. */
export function storedSchema<T>(definition: SchemaDefinition<T>, indexes: IndexSpec[] = []): Schema<T> {
  const schema = new Schema<T>(definition, STORED_AS_WRITTEN);
  for (const [keys, options] of indexes) schema.index(keys, options);
  return schema;
}

/**
 * The model of `collection` on this connection (the model is named after its collection). Asking again
 * with the same schema answers the same model; another schema for the same collection is a mistake.
 */
export function modelOf<T>(connection: Connection, collection: string, schema: Schema<T>): Model<T> {
  const existing = connection.models[collection] as Model<T> | undefined;
  if (existing) {
    if (existing.schema !== schema) throw new Error(`collection ${collection} already has a model with another schema`);
    return existing;
  }
  return connection.model<T>(collection, schema, collection);
}

/** Creates the indexes declared on the schema of each model (idempotent). */
export async function createDeclaredIndexes(...models: Array<Pick<Model<never>, 'createIndexes'>>): Promise<void> {
  for (const model of models) await model.createIndexes();
}
