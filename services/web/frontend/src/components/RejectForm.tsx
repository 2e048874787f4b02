import { useId, useState, type FormEvent } from 'react';
import { lengthOf } from '../limits';

/** Rejecting needs a reason (1 to 500 characters) that the owner will read. */
export function RejectForm({ onReject, pending }: { onReject: (reason: string) => void; pending: boolean }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const id = useId();
  if (!open)
    return (
      <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
        Reject…
      </button>
    );
  const length = lengthOf(reason.trim());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (length >= 1 && length <= 500) onReject(reason.trim());
  };
  return (
    <form className="reject-form" onSubmit={submit} aria-label="Reject">
      <label htmlFor={id}>Reason for the owner</label>
      <textarea id={id} value={reason} onChange={(event) => setReason(event.target.value)} rows={3} required maxLength={500} aria-describedby={`${id}-count`} />
      <span id={`${id}-count`} className="counter">
        {length} / 500
      </span>
      <div className="actions">
        <button type="submit" className="button button-danger" disabled={pending || length < 1 || length > 500}>
          Reject
        </button>
        <button type="button" className="link-button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
