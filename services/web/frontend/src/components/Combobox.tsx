/**
 * A picker with type-ahead (the ARIA combobox pattern: a text field with role=combobox and a listbox):
 * typing narrows the choices (here, or at the service through `onSearch`), Up and Down move, Enter
 * chooses, Escape closes and puts back the chosen value's words.
 */
import { useId, useState, type KeyboardEvent } from 'react';
import { matchingChoices, type Choice } from '../combobox-logic';
import { moveIndex } from '../review-logic';

export interface ComboboxProps {
  /** the id, aria-describedby and aria-invalid of a Field, or just an id */
  inputProps?: { id?: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean };
  /** the visible label; left out when a Field writes it */
  label?: string;
  value: string;
  /** the words of the value chosen (the service's records: a choice not among those listed) */
  valueLabel: string;
  choices: readonly Choice[];
  onChange: (value: string) => void;
  /** the text typed, for choices the service finds; without it the choices are narrowed here */
  onSearch?: (text: string) => void;
  placeholder?: string;
  loading?: boolean;
  testId?: string;
}

export function Combobox({ inputProps, label, value, valueLabel, choices, onChange, onSearch, placeholder, loading, testId }: ComboboxProps) {
  const ownId = useId();
  const inputId = inputProps?.id ?? `${ownId}-input`;
  const listId = `${ownId}-list`;
  const [open, setOpen] = useState(false);
  const [text, setText] = useState<string | null>(null);
  const [active, setActive] = useState(-1);
  const typing = text !== null;
  const shown = onSearch || !typing ? [...choices] : matchingChoices(choices, text);

  const close = () => {
    setOpen(false);
    setText(null);
    setActive(-1);
    onSearch?.('');
  };
  const choose = (choice: Choice) => {
    onChange(choice.value);
    close();
  };
  const keyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) setOpen(true);
      setActive((index) => moveIndex(index, event.key === 'ArrowDown' ? 1 : -1, shown.length));
    } else if (event.key === 'Enter') {
      const choice = shown[active];
      if (open && choice) {
        event.preventDefault();
        choose(choice);
      }
    } else if (event.key === 'Escape') {
      if (open || typing) {
        event.preventDefault();
        close();
      }
    }
  };

  return (
    <div className="combobox" data-testid={testId}>
      {label ? <label htmlFor={inputId}>{label}</label> : null}
      {/* The list opens from the field itself, whatever the label or the row around it. */}
      <div className="combobox-control">
        <input
          {...inputProps}
          id={inputId}
          type="text"
          role="combobox"
          dir="auto"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open && shown[active] ? `${listId}-${active}` : undefined}
          value={typing ? text : valueLabel}
          placeholder={placeholder}
          onChange={(event) => {
            setText(event.target.value);
            setOpen(true);
            setActive(-1);
            onSearch?.(event.target.value);
          }}
          onFocus={(event) => event.target.select()}
          onClick={() => setOpen(true)}
          onKeyDown={keyDown}
          onBlur={close}
        />
        <ul id={listId} role="listbox" aria-label={label ? `${label} choices` : 'Choices'} className="combobox-list" hidden={!open}>
          {shown.map((choice, index) => (
            <li
              key={choice.value}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={choice.value === value}
              className={index === active ? 'combobox-active' : undefined}
              // Chosen before the field loses focus (a click would blur it first and close the list).
              onMouseDown={(event) => {
                event.preventDefault();
                choose(choice);
              }}
            >
              <bdi dir="auto">{choice.label}</bdi>
            </li>
          ))}
          {shown.length === 0 ? <li className="combobox-none" role="option" aria-disabled="true" aria-selected={false}>{loading ? 'Searching…' : 'Nothing matches.'}</li> : null}
        </ul>
      </div>
    </div>
  );
}
