import { ReasonForm } from './ReasonForm';

const CONSEQUENCES = {
  campaign: {
    owner: 'Publishers stop receiving this campaign at once, and every link already sent with it stops opening your page. You cannot resume it yourself: only an administrator can activate it again.',
    admin: 'Publishers stop receiving this campaign at once, and every link already sent with it stops opening the destination. Activate it again to resume.',
  },
  publisher: {
    owner: '',
    admin: "The platform's server key is refused from its next ad request, and every link it already sent stops opening the destination. Approve it again to resume; the owner keeps the same key.",
  },
} as const;

/** Pausing asks first, says what it does, and takes an optional reason the owner reads (API.md). */
export function PauseForm({
  record,
  asOwner,
  pending,
  onPause,
  draftKey,
}: {
  record: 'campaign' | 'publisher';
  asOwner: boolean;
  pending: boolean;
  onPause: (reason: string | undefined) => void;
  draftKey: string;
}) {
  return (
    <ReasonForm
      openLabel="Pause…"
      name="Pause"
      draftKey={`pause-${draftKey}`}
      reasonLabel={asOwner ? 'Reason (optional, kept in the audit record)' : 'Reason for the owner (optional)'}
      submitLabel={record === 'campaign' ? 'Pause the campaign' : 'Pause the platform'}
      required={false}
      consequence={<p>{CONSEQUENCES[record][asOwner ? 'owner' : 'admin']}</p>}
      pending={pending}
      onSubmit={onPause}
    />
  );
}
