import { useEffect, useRef, useState, type RefObject } from 'react';

/**
 * After a failed save, the first invalid field of the form gets focus and is scrolled into view (on a
 * phone it is otherwise off screen). Call the returned function when a save fails; the focus
 * moves after the next render, once the fields are marked aria-invalid.
 */
export function useFocusFirstInvalid(form: RefObject<HTMLFormElement | null>): () => void {
  const [requests, setRequests] = useState(0);
  const handled = useRef(0);
  useEffect(() => {
    if (requests === handled.current) return;
    handled.current = requests;
    const first = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (!first) return;
    first.focus({ preventScroll: true });
    first.scrollIntoView({ block: 'center' });
  });
  return () => setRequests((count) => count + 1);
}
