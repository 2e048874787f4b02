import { parseField, parseHourField, TOTAL_KINDS, type StoredDay, type UnfoldedPair } from '@pilot/counting';
import type { PairQuery } from '@pilot/counting/totals';
import type { Cell } from '../domain/report';
import type { TrackingDeps } from './deps';

const pairKey = (campaignId: number, publisherId: number) => `${campaignId}:${publisherId}`;

/**
 * The cells of the finest grain over the records the filter and the account may see: the documents of the
 * grains `cp:<campaign>:<publisher>` (one indexed query, two for an account), then what Redis holds of
 * those grains that the documents do not, by each document's `lastFold` as `stats` adds it. A pair only
 * Redis knows is visible by the owners Redis records for its campaign and platform.
 */
export async function readCells(deps: Pick<TrackingDeps, 'totals'>, query: PairQuery, hourly: boolean, unfolded: UnfoldedPair[]): Promise<Iterable<Cell>> {
  const cells = new Map<string, Cell>();
  const lastFolds = new Map<string, number>();
  const owners = new Map<string, Pick<StoredDay, 'campaignOwnerAccountId' | 'publisherOwnerAccountId'>>();
  const cellOf = (key: { campaignId: number; publisherId: number; day: string }, slot: string, hour?: string): Cell => {
    const id = `${pairKey(key.campaignId, key.publisherId)}:${slot}`;
    let cell = cells.get(id);
    if (!cell) cells.set(id, (cell = { campaignId: key.campaignId, publisherId: key.publisherId, day: key.day, hour, counts: {} }));
    return cell;
  };
  for (const stored of await deps.totals.readPairs(query, hourly)) {
    const document = { ...stored, campaignId: stored.campaignId!, publisherId: stored.publisherId! };
    lastFolds.set(`${pairKey(document.campaignId, document.publisherId)}:${document.day}`, document.lastFold);
    owners.set(pairKey(document.campaignId, document.publisherId), document);
    if (!hourly) Object.assign(cellOf(document, document.day).counts, document.counts);
    else for (const [hour, counts] of Object.entries(document.hours ?? {})) Object.assign(cellOf(document, `${document.day}T${hour}`, `${document.day}T${hour}:00:00.000Z`).counts, counts);
  }
  for (const part of unfolded) {
    if (!visible(part, query, owners.get(pairKey(part.campaignId, part.publisherId)))) continue;
    for (const [field, count] of part.fields) {
      const parsed = hourly ? parseHourField(field) : parseField(field);
      if (!parsed || !(TOTAL_KINDS as readonly string[]).includes(parsed.kind)) continue;
      if ((query.from !== undefined && parsed.day < query.from) || (query.to !== undefined && parsed.day > query.to)) continue;
      const lastFold = lastFolds.get(`${pairKey(part.campaignId, part.publisherId)}:${parsed.day}`) ?? 0;
      if (part.fold <= lastFold) continue;
      const key = { campaignId: part.campaignId, publisherId: part.publisherId, day: parsed.day };
      const hour = 'hour' in parsed ? parsed.hour : undefined;
      const cell = hour === undefined ? cellOf(key, parsed.day) : cellOf(key, `${parsed.day}T${hour}`, `${parsed.day}T${hour}:00:00.000Z`);
      cell.counts[parsed.kind] = (cell.counts[parsed.kind] ?? 0) + count;
    }
  }
  return cells.values();
}

/** Whether an unfolded pair is within the filter and visible to the account (its owners: Redis', else the documents'). */
function visible(part: UnfoldedPair, query: PairQuery, stored: Pick<StoredDay, 'campaignOwnerAccountId' | 'publisherOwnerAccountId'> | undefined): boolean {
  if ((query.campaignId !== undefined && part.campaignId !== query.campaignId) || (query.publisherId !== undefined && part.publisherId !== query.publisherId)) return false;
  if (query.visibleTo === undefined) return true;
  const campaignOwner = part.campaignOwnerAccountId ?? stored?.campaignOwnerAccountId;
  const publisherOwner = part.publisherOwnerAccountId ?? stored?.publisherOwnerAccountId;
  return campaignOwner === query.visibleTo || publisherOwner === query.visibleTo;
}
