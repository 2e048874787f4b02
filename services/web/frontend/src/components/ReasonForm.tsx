/**
 * A step that asks before a consequential move (reject, pause): a button opens a small form that says what
 * will happen and takes a reason (required or optional, 1 to 500 characters). Opening it moves focus to
 * the reason; Cancel or Escape closes it and gives focus back to the button.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { useFormDraft } from '../hooks/form-draft';
import { counterOf, lengthOf } from '../limits';
import { DraftRestoredNotice } from './DraftRestoredNotice';

export interface ReasonFormProps {
  /** the opening button, e.g. "Reject…" */
  openLabel: string;
  /** the form's accessible name, e.g. "Reject" */
  name: string;
  reasonLabel: string;
  submitLabel: string;
  required: boolean;
  /** what the move does, said before it is made */
  consequence?: ReactNode;
  pending: boolean;
  onSubmit: (reason: string | undefined) => void;
  /** the opening button's accessible name, when the visible words are not enough (several on a page) */
  openName?: string;
  /** marks the opening button for a keyboard shortcut of the page */
  shortcut?: string;
  /** where the typed reason is kept if the session ends meanwhile (one per record and form) */
  draftKey: string;
  /** reasons to pick from, each put in the field to be edited there */
  presets?: readonly string[];
}

export const REASON_MAX = 500;

export function ReasonForm({ openLabel, name, reasonLabel, submitLabel, required, consequence, pending, onSubmit, draftKey, openName, shortcut, presets = [] }: ReasonFormProps) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const id = useId();
  const opener = useRef<HTMLButtonElement>(null);
  const field = useRef<HTMLTextAreaElement>(null);
  const wasOpen = useRef(false);
  const restored = useFormDraft(`reason-${draftKey}`, open ? reason : '', '', (saved) => {
    setReason(saved);
    setOpen(true);
  });

  useEffect(() => {
    if (open) field.current?.focus();
    else if (wasOpen.current) opener.current?.focus();
    wasOpen.current = open;
  }, [open]);

  if (!open)
    return (
      <button ref={opener} type="button" className="button button-danger-outline" onClick={() => setOpen(true)} aria-label={openName} data-shortcut={shortcut}>
        {openLabel}
      </button>
    );
  const trimmed = reason.trim();
  const length = lengthOf(trimmed);
  const counter = counterOf(trimmed, REASON_MAX);
  const valid = !counter.over && (!required || length >= 1);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) onSubmit(length > 0 ? trimmed : undefined);
  };
  const escape = (event: KeyboardEvent) => {
    if (event.key === 'Escape') setOpen(false);
  };
  return (
    <form className="reject-form" onSubmit={submit} onKeyDown={escape} aria-label={name}>
      {consequence ? (
        <div className="warning" id={`${id}-consequence`}>
          {consequence}
        </div>
      ) : null}
      <DraftRestoredNotice shown={restored} />
      {presets.length > 0 ? (
        <div className="reason-presets" role="group" aria-label="Common reasons">
          <p className="help">Pick a common reason, then edit it for this record:</p>
          <ul>
            {presets.map((preset) => (
              <li key={preset}>
                <button
                  type="button"
                  className="link-button"
                  onClick={() => {
                    setReason(preset);
                    field.current?.focus();
                  }}
                >
                  {preset}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <label htmlFor={id}>{reasonLabel}</label>
      <textarea
        ref={field}
        id={id}
        value={reason}
        dir="auto"
        onChange={(event) => setReason(event.target.value)}
        rows={3}
        required={required}
        maxLength={REASON_MAX}
        aria-describedby={`${consequence ? `${id}-consequence ` : ''}${id}-count`}
      />
      <span id={`${id}-count`} className={counter.over ? 'counter counter-over' : 'counter'}>
        {counter.text}
      </span>
      <div className="actions">
        <button type="submit" className="button button-danger" disabled={pending || !valid}>
          {submitLabel}
        </button>
        <button type="button" className="link-button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
