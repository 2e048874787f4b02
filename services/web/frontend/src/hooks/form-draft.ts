/**
 * What a person was typing when their session ended: a save that meets a 401 sends them to sign-in, which
 * unmounts the form. The form's content is then kept in sessionStorage (this tab only, gone with it) and
 * put back once the same form opens again after sign-in (the deep link leads there). A form that is left
 * while signed in, or when the person signs out, keeps nothing.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { SESSION_KEY } from '../session';
import { sessionEndedByService } from '../session-end';

const PREFIX = 'pilot.draft.';

function take<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(PREFIX + key);
    if (raw === null) return null;
    sessionStorage.removeItem(PREFIX + key);
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

function keep(key: string, value: unknown): void {
  try {
    sessionStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // storage refused (private mode, full): the content is lost as before
  }
}

/**
 * Keeps `value` under `key` if the form unmounts because the session ended, unless it is still `empty`;
 * calls `restore` with a kept value when the form mounts. Answers whether a value was restored.
 */
export function useFormDraft<T>(key: string, value: T, empty: T, restore: (saved: T) => void): boolean {
  const client = useQueryClient();
  const latest = useRef(value);
  latest.current = value;
  const restoreRef = useRef(restore);
  restoreRef.current = restore;
  const emptyText = JSON.stringify(empty);
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    const saved = take<T>(key);
    if (saved !== null) {
      restoreRef.current(saved);
      setRestored(true);
    }
    return () => {
      const sessionEnded = client.getQueryData(SESSION_KEY) === null && sessionEndedByService();
      if (sessionEnded && JSON.stringify(latest.current) !== emptyText) keep(key, latest.current);
    };
  }, [client, key, emptyText]);
  return restored;
}
