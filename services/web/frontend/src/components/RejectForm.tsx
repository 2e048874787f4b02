import { ReasonForm } from './ReasonForm';

/** Rejecting needs a reason (1 to 500 characters) that the owner will read. */
export function RejectForm({ onReject, pending, draftKey, openLabel = 'Reject…', openName, shortcut }: { onReject: (reason: string) => void; pending: boolean; draftKey: string; openLabel?: string; openName?: string; shortcut?: string }) {
  return (
    <ReasonForm
      openLabel={openLabel}
      openName={openName}
      shortcut={shortcut}
      name="Reject"
      draftKey={`reject-${draftKey}`}
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
