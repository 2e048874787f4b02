const WORDS: Record<string, string> = {
  draft: 'Draft',
  submitted: 'In review',
  approved: 'Approved',
  active: 'Active',
  paused: 'Paused',
  rejected: 'Rejected',
  scheduled: 'Scheduled',
  live: 'Live',
  ended: 'Ended',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{WORDS[status] ?? status}</span>;
}
