import { useId, type ReactNode } from 'react';
import type { FieldError } from '../api';
import { fieldMessage } from '../field-messages';
import type { Counter } from '../limits';

interface FieldProps {
  label: string;
  /** hint shown while typing (client-side mirror of the server's limits) */
  hint?: string | null;
  /** counter such as "12 / 100", red and saying so when over the limit */
  counter?: Counter;
  /** the server's 422 errors for this field */
  serverErrors?: FieldError[];
  help?: string;
  children: (props: { id: string; 'aria-describedby': string; 'aria-invalid': boolean }) => ReactNode;
}

/** A labelled form control with its counter, typing hint and the server's verdict next to it. */
export function Field({ label, hint, counter, serverErrors = [], help, children }: FieldProps) {
  const id = useId();
  const describedBy = `${id}-help ${id}-hint ${id}-server`;
  // The service's verdict replaces the typing hint, so one problem is never said twice.
  const shownHint = serverErrors.length > 0 ? null : hint;
  const invalid = Boolean(shownHint) || serverErrors.length > 0;
  return (
    <div className={`field${invalid ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': invalid })}
      <div className="field-notes">
        <span id={`${id}-help`} className="help">
          {help}
        </span>
        {counter ? (
          <span className={counter.over ? 'counter counter-over' : 'counter'} aria-live="polite" data-testid="counter">
            {counter.text}
          </span>
        ) : null}
      </div>
      <p id={`${id}-hint`} className="hint">
        {shownHint}
      </p>
      <div id={`${id}-server`} className="server-errors" data-testid="server-errors">
        {serverErrors.map((error) => (
          <p key={`${error.field}:${error.code}`} className="error" role="alert">
            {fieldMessage(error)}
          </p>
        ))}
      </div>
    </div>
  );
}
