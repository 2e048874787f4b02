/**
 * The bodies the placement service takes, checked against their contracts (@pilot/contracts schemas:
 * the rules, codes and types live there) and shaped into what the domain keeps. The one rule across
 * fields, an end after the start, is checked here.
 */
import { ImpressionBody, parseUtcDateTime, PlacementBody, validatorOf, type FieldProblem, type Validated } from '@pilot/contracts';
import type { PlacementContent } from './placement';

export type PlacementInput = PlacementContent;

const checkPlacement = validatorOf(PlacementBody);
const checkImpression = validatorOf(ImpressionBody);

function timeOf(value: unknown): Date | null {
  return typeof value === 'string' ? parseUtcDateTime(value) : null;
}

export function validatePlacementInput(body: unknown): Validated<PlacementInput> {
  const checked = checkPlacement(body);
  const errors = checked.ok ? [] : [...checked.errors];
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const startsAt = timeOf(record.startsAt);
  const endsAt = timeOf(record.endsAt);
  if (startsAt && endsAt && endsAt.getTime() <= startsAt.getTime()) {
    errors.push({ field: 'endsAt', code: 'ends_before_start', message: 'endsAt must be after the start time' });
  }
  if (!checked.ok || errors.length > 0) return { ok: false, errors };
  const { imageUrl, ...rest } = checked.value;
  return { ok: true, value: { ...rest, imageUrl: imageUrl ? imageUrl : null, startsAt, endsAt } };
}

/** Body of POST /api/site/placements/{slot}/impressions: {placementId}. */
export function validateImpressionInput(body: unknown): { ok: true; placementId: string } | { ok: false; errors: FieldProblem[] } {
  const checked = checkImpression(body);
  return checked.ok ? { ok: true, placementId: checked.value.placementId } : checked;
}
