import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiBody } from '../api';
import { ErrorMessage } from '../components/ErrorMessage';
import { Field } from '../components/Field';
import { PlacementView } from '../components/PlacementSlot';
import { StatusBadge } from '../components/StatusBadge';
import { useFocusFirstInvalid } from '../hooks/focus-invalid';
import { usePageTitle } from '../hooks/page-title';
import { counterOf, creativeTextHint, httpsUrlHint } from '../limits';
import { placementState, saveOutcome, scheduleWarning } from '../placement-schedule';
import { useAccount } from '../session';
import type { Slot, SlotState } from '../types';
import { formatCount, formatDateTime } from '../format';

/** Where each slot is drawn, and for whom: the administrator decides with this in mind. */
const WHERE: Record<Slot, { page: string; detail: string; label: string }> = {
  'home-feature': { page: 'Home page (/)', detail: 'Below "What the totals mean", for every visitor, in English.', label: 'Sponsored' },
  'workspace-top': {
    page: 'Top of every workspace page',
    detail: 'Above each page of the workspace, for every signed-in account; on phones one compact line without the image.',
    label: 'Sponsored',
  },
  'tr-footer': { page: 'Turkish page (/tr), footer', detail: 'In the footer of the Turkish page, labelled "Sponsorlu"; write it in Turkish.', label: 'Sponsorlu' },
};

/** datetime-local value (read as UTC) <-> ISO 8601 UTC */
function toInput(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 16) : '';
}
function toIso(local: string): string | undefined {
  return local ? `${local}:00.000Z` : undefined;
}

function when(iso: string): string {
  return formatDateTime(iso);
}

/** The schedule in words: when the placement starts and ends showing. */
function scheduleWords(startsAt: string | null | undefined, endsAt: string | null | undefined): string {
  if (startsAt && endsAt) return `scheduled from ${when(startsAt)} until ${when(endsAt)}`;
  if (startsAt) return `from ${when(startsAt)}, no end`;
  if (endsAt) return `until ${when(endsAt)}`;
  return 'no schedule: shown whenever active';
}

export function PlacementsPage() {
  const account = useAccount();
  usePageTitle('Website placements');
  const slots = useQuery({
    queryKey: ['placements'],
    enabled: account.admin,
    queryFn: () => apiBody<{ items: SlotState[] }>('/api/workspace/placements'),
  });
  if (!account.admin) return <p className="error" role="alert">Only administrators manage website placements.</p>;
  return (
    <section>
      <h1>Website placements</h1>
      <p className="help">
        Slots on this website. Impressions are reported by browsers when at least half of a placement is visible; they are separate from the
        network totals.
      </p>
      <ErrorMessage error={slots.error} />
      {slots.isPending ? (
        <p className="loading" role="status">
          Loading the slots…
        </p>
      ) : null}
      {slots.data?.items.map((item) => <SlotEditor key={item.slot} state={item} />)}
    </section>
  );
}

function SlotEditor({ state }: { state: SlotState }) {
  const client = useQueryClient();
  const current = state.placement;
  const [form, setForm] = useState({
    title: current?.title ?? '',
    buttonText: current?.buttonText ?? '',
    destinationUrl: current?.destinationUrl ?? '',
    imageUrl: current?.imageUrl ?? '',
    status: current?.status ?? 'draft',
    startsAt: toInput(current?.startsAt),
    endsAt: toInput(current?.endsAt),
  });
  const formRef = useRef<HTMLFormElement>(null);
  const focusFirstInvalid = useFocusFirstInvalid(formRef);
  const [saved, setSaved] = useState<string | null>(null);
  const save = useSafeMutation({
    mutationFn: (body: Record<string, unknown>) => apiBody<SlotState>(`/api/workspace/placements/${state.slot}`, { method: 'PUT', body }),
    onSuccess: (answer) => {
      setSaved(saveOutcome(current?.placementId, state.impressions, answer));
      void client.invalidateQueries({ queryKey: ['placements'] });
    },
    onError: () => {
      setSaved(null);
      focusFirstInvalid();
    },
  });
  // "Saved." is a moment's news: it goes away after a while, and as soon as the form is edited again.
  useEffect(() => {
    if (!saved) return;
    const timer = setTimeout(() => setSaved(null), 15_000);
    return () => clearTimeout(timer);
  }, [saved]);
  const serverErrors = save.error instanceof ApiError ? save.error.errors : [];
  const errorsFor = (field: string) => serverErrors.filter((error) => error.field === field);
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) => {
    setSaved(null);
    setForm({ ...form, [key]: event.target.value });
  };
  const warning = scheduleWarning({ status: form.status, startsAt: toIso(form.startsAt) ?? null, endsAt: toIso(form.endsAt) ?? null }, new Date());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: Record<string, unknown> = {
      title: form.title,
      buttonText: form.buttonText,
      destinationUrl: form.destinationUrl,
      status: form.status,
    };
    if (form.imageUrl) body.imageUrl = form.imageUrl;
    const startsAt = toIso(form.startsAt);
    const endsAt = toIso(form.endsAt);
    if (startsAt) body.startsAt = startsAt;
    if (endsAt) body.endsAt = endsAt;
    save.mutate(body);
  };
  return (
    <form ref={formRef} className="slot" onSubmit={submit} noValidate aria-label={`Slot ${state.slot}`} data-slot={state.slot}>
      <h2>
        {state.slot} {current ? <StatusBadge status={placementState(current, new Date())} /> : <span className="help">(empty)</span>}
      </h2>
      <p className="help" data-testid="slot-where">
        <strong>{WHERE[state.slot].page}.</strong> {WHERE[state.slot].detail}
      </p>
      <p className="help">
        Impressions of the current placement: {formatCount(state.impressions)}
        {current ? ` · ${scheduleWords(current.startsAt, current.endsAt)}` : ''}
      </p>
      <Field label="Title" hint={form.title ? creativeTextHint(form.title, { min: 1, max: 100 }) : null} counter={counterOf(form.title, 100)} serverErrors={errorsFor('title')}>
        {(props) => <input {...props} dir="auto" value={form.title} onChange={set('title')} />}
      </Field>
      <Field
        label="Button label"
        hint={form.buttonText ? creativeTextHint(form.buttonText, { min: 1, max: 32 }) : null}
        counter={counterOf(form.buttonText, 32)}
        serverErrors={errorsFor('buttonText')}
      >
        {(props) => <input {...props} dir="auto" value={form.buttonText} onChange={set('buttonText')} />}
      </Field>
      <Field label="Destination (https)" hint={form.destinationUrl ? httpsUrlHint(form.destinationUrl, true) : null} serverErrors={errorsFor('destinationUrl')}>
        {(props) => <input {...props} type="url" value={form.destinationUrl} onChange={set('destinationUrl')} />}
      </Field>
      <Field label="Image address (optional, https)" hint={httpsUrlHint(form.imageUrl, false)} serverErrors={errorsFor('imageUrl')}>
        {(props) => <input {...props} type="url" value={form.imageUrl} onChange={set('imageUrl')} />}
      </Field>
      <Field label="Status" serverErrors={errorsFor('status')}>
        {(props) => (
          <select {...props} value={form.status} onChange={set('status')}>
            <option value="draft">Draft (not shown)</option>
            <option value="active">Active</option>
            <option value="paused">Paused (not shown)</option>
          </select>
        )}
      </Field>
      <Field label="Starts at (UTC, optional)" serverErrors={errorsFor('startsAt')}>
        {(props) => <input {...props} type="datetime-local" value={form.startsAt} onChange={set('startsAt')} />}
      </Field>
      <Field label="Ends at (UTC, optional)" serverErrors={errorsFor('endsAt')}>
        {(props) => <input {...props} type="datetime-local" value={form.endsAt} onChange={set('endsAt')} />}
      </Field>
      {warning ? (
        <p className="warning" role="status" data-testid="schedule-warning">
          {warning}
        </p>
      ) : null}
      <div className="slot-preview">
        <p className="help">Preview (as drawn on the page; shown there only while active and inside its schedule):</p>
        <PlacementView preview placement={{ slot: state.slot, title: form.title || 'Title', buttonText: form.buttonText || 'Button', destinationUrl: form.destinationUrl, imageUrl: form.imageUrl || null }} label={WHERE[state.slot].label} />
      </div>
      {save.error && !(save.error instanceof ApiError && save.error.status === 422) ? <ErrorMessage error={save.error} /> : null}
      {saved ? (
        <p role="status" className="notice" data-testid="saved">
          {saved}
        </p>
      ) : null}
      <button type="submit" className="button" disabled={save.isPending}>
        Save {state.slot}
      </button>
    </form>
  );
}
