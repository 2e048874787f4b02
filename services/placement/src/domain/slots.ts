/** The website's placement slots (SPEC.md "Website placement"); each holds one current placement. */
import { SLOTS, type Slot } from '@pilot/contracts';

export { SLOTS, type Slot };

export function isSlot(value: unknown): value is Slot {
  return typeof value === 'string' && (SLOTS as readonly string[]).includes(value);
}
