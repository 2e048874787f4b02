import { statusWord } from '../status-words';

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{statusWord(status)}</span>;
}
