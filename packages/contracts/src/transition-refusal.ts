/**
 * The words of a 409 `invalid_transition` for people: the record's status as a person says it and why the
 * action cannot happen now ("This campaign is already active."), never the state machine's terms.
 */
const STATUS_PHRASES: Record<string, string> = {
  draft: 'still a draft',
  submitted: 'waiting for review',
  approved: 'approved',
  active: 'active',
  paused: 'paused',
  rejected: 'rejected',
};

const ACTION_PHRASES: Record<string, string> = {
  submit: 'submitted for review',
  approve: 'approved',
  reject: 'rejected',
  activate: 'activated',
  pause: 'paused',
};

/**
 * `record` is what a person calls it ("campaign", "platform"); `target` is the status the action leads to:
 * when the record is there already, the action was most likely done a moment ago (a second click).
 */
export function transitionRefusalMessage(record: string, status: string, action: string, target: string): string {
  const now = STATUS_PHRASES[status] ?? status;
  if (status === target) return `This ${record} is already ${now}.`;
  return `This ${record} is ${now}, so it cannot be ${ACTION_PHRASES[action] ?? action} now.`;
}
