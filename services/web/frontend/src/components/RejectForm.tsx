import { CAMPAIGN_REJECTION_REASONS, PLATFORM_REJECTION_REASONS } from '../rejection-reasons';
import { ReasonForm } from './ReasonForm';

interface RejectFormProps {
  onReject: (reason: string) => void;
  pending: boolean;
  draftKey: string;
  openLabel?: string;
  openName?: string;
  shortcut?: string;
  /** what is rejected, for the common reasons offered; none for a mixed selection */
  record?: 'campaign' | 'publisher';
}

/** Rejecting needs a reason (1 to 500 characters) that the owner will read; common ones can be picked and edited. */
export function RejectForm({ onReject, pending, draftKey, openLabel = 'Reject…', openName, shortcut, record }: RejectFormProps) {
  return (
    <ReasonForm
      presets={record === 'campaign' ? CAMPAIGN_REJECTION_REASONS : record === 'publisher' ? PLATFORM_REJECTION_REASONS : []}
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
