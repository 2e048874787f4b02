/**
 * MongoDB's `$group`, checked on the store at MONGO_URL (the local store the scripts build, or a MongoDB
 * server): every accumulator of a group reads every document of it, and `$sum` counts a missing field as 0,
 * as a breakdown narrowed to some ids sums its items' days (`$group` by item, a `$sum` per counter).
 */
import { uniqueName } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Collection } from 'mongodb';

const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';

interface Day {
  _id: string;
  item: number;
  adRequests?: number;
  confirmedDeliveries?: number;
  clickedLinks?: number;
}

describe('the store at MONGO_URL groups as MongoDB does', () => {
  const dbName = uniqueName('aggregation');
  const client = new MongoClient(mongoUrl);
  let days: Collection<Day>;

  before(async () => {
    await client.connect();
    days = client.db(dbName).collection<Day>('days');
  });

  after(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  it('sums every accumulator of a group over every document of it, a missing field as 0', async () => {
    await days.insertMany([
      { _id: 'a', item: 7, adRequests: 2 },
      { _id: 'b', item: 7, adRequests: 3, confirmedDeliveries: 1, clickedLinks: 1 },
      { _id: 'c', item: 8, confirmedDeliveries: 4 },
      { _id: 'd', item: 7, adRequests: 1, clickedLinks: 2 },
    ]);
    const sums = await days
      .aggregate<Day>([{ $match: { item: { $in: [7, 8] } } }, { $group: { _id: '$item', adRequests: { $sum: '$adRequests' }, confirmedDeliveries: { $sum: '$confirmedDeliveries' }, clickedLinks: { $sum: '$clickedLinks' } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(sums).to.deep.equal([
      { _id: 7, adRequests: 6, confirmedDeliveries: 1, clickedLinks: 3 },
      { _id: 8, adRequests: 0, confirmedDeliveries: 4, clickedLinks: 0 },
    ]);
  });
});
