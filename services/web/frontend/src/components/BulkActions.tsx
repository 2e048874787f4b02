/**
 * Moves for several records of a list at once (an owner submits or pauses its campaigns): the rows
 * chosen, one button per move that says to how many of them it applies, a confirmation where the move
 * asks for one, then the moves one after the other with each record's outcome in words.
 */
import { useState } from 'react';
import { describeError } from '../api';
import { countOf } from '../format';

export interface BulkAction<T> {
  id: string;
  /** the button's words, e.g. "Submit for review" */
  label: string;
  /** whether the move applies to this record as it stands */
  applies: (item: T) => boolean;
  /** the move; resolves to its outcome in words */
  run: (item: T) => Promise<string>;
  /** asked before the move is made, when it has consequences */
  confirm?: (count: number) => string;
}

export interface BulkOutcome {
  id: number;
  ok: boolean;
  words: string;
}

export function BulkBar<T extends { id: number }>({
  chosen,
  actions,
  noun,
  onDone,
  onClear,
  outcomes,
  onOutcomes,
}: {
  chosen: readonly T[];
  actions: ReadonlyArray<BulkAction<T>>;
  noun: { one: string; many: string };
  onDone: () => void;
  onClear: () => void;
  /** the last moves' outcomes, kept by the list: they stay after the rows they moved leave the choice */
  outcomes: readonly BulkOutcome[];
  onOutcomes: (outcomes: BulkOutcome[]) => void;
}) {
  const [asking, setAsking] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const run = async (action: BulkAction<T>) => {
    setAsking(null);
    setRunning(true);
    const done: BulkOutcome[] = [];
    for (const item of chosen.filter(action.applies)) {
      try {
        done.push({ id: item.id, ok: true, words: await action.run(item) });
      } catch (error) {
        done.push({ id: item.id, ok: false, words: describeError(error) });
      }
      onOutcomes([...done]);
    }
    setRunning(false);
    onDone();
  };
  const pending = actions.find((action) => action.id === asking);
  return (
    <div className="bulk-bar" role="region" aria-label={`Several ${noun.many} at once`} data-testid="bulk-bar">
      <div className="actions">
        <span aria-live="polite">{chosen.length === 0 ? `Choose ${noun.many} to act on several at once.` : `${countOf(chosen.length, noun)} chosen.`}</span>
        {actions.map((action) => {
          const count = chosen.filter(action.applies).length;
          return (
            <button
              key={action.id}
              type="button"
              className="button button-secondary"
              disabled={running || count === 0}
              onClick={() => (action.confirm ? setAsking(action.id) : void run(action))}
            >
              {action.label} ({count})
            </button>
          );
        })}
        {chosen.length > 0 ? (
          <button type="button" className="link-button" onClick={onClear} disabled={running}>
            Clear the choice
          </button>
        ) : null}
      </div>
      {pending?.confirm ? (
        <div className="confirm" role="group" aria-label={`Confirm: ${pending.label}`}>
          <p className="warning">{pending.confirm(chosen.filter(pending.applies).length)}</p>
          <button type="button" className="button button-danger" onClick={() => void run(pending)}>
            Yes, {pending.label.toLowerCase()}
          </button>
          <button type="button" className="link-button" onClick={() => setAsking(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      {outcomes.length > 0 ? (
        <ul className="bulk-outcomes" role="status" data-testid="bulk-outcomes">
          {outcomes.map((outcome) => (
            <li key={outcome.id} className={outcome.ok ? undefined : 'error'}>
              #{outcome.id}: {outcome.words}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
