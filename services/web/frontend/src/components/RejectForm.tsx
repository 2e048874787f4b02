import { ReasonForm } from './ReasonForm';

/** Rejecting needs a reason (1 to 500 characters) that the owner will read. */
export function RejectForm({ onReject, pending }: { onReject: (reason: string) => void; pending: boolean }) {
  return (
    <ReasonForm
      openLabel="Reject…"
      name="Reject"
      reasonLabel="Reason for the owner"
      submitLabel="Reject"
      required
      pending={pending}
      onSubmit={(reason) => {
        if (reason) onReject(reason);
      }}
    />
  );
}
