/** The website's placement slots (SPEC.md "Website placement"); each holds one current placement. */
export const SLOTS = ['home-feature', 'workspace-top', 'tr-footer'] as const;

export type Slot = (typeof SLOTS)[number];

export function isSlot(value: unknown): value is Slot {
  return typeof value === 'string' && (SLOTS as readonly string[]).includes(value);
}
