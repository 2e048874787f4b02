/**
 * Asks before leaving a page that holds something shown only once (a freshly revealed key).
 * A move inside the site is held and this asks on the page, with focus on "Stay"; a reload or closing the
 * tab gets the browser's own question. Only one guard may be active at a time (the router's rule).
 */
import { useEffect, useId, useLayoutEffect, useRef } from 'react';
import { useBlocker } from 'react-router-dom';

export function LeaveGuard({ when, message, leaveLabel }: { when: boolean; message: string; leaveLabel: string }) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => when && currentLocation.pathname !== nextLocation.pathname);
  const stay = useRef<HTMLButtonElement>(null);
  const id = useId();
  // Read by the browser's own question (reload, closing the tab): set in a layout effect, so dropping `when`
  // disarms it in that commit, and cleared at once by "leave", before the page has drawn the next one.
  const armed = useRef(when);
  useLayoutEffect(() => {
    armed.current = when;
  }, [when]);
  useLayoutEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (armed.current) event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, []);
  useEffect(() => {
    if (blocker.state === 'blocked') stay.current?.focus();
  }, [blocker.state]);
  if (blocker.state !== 'blocked') return null;
  return (
    <div
      className="leave-guard"
      role="alertdialog"
      aria-labelledby={`${id}-message`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') blocker.reset();
      }}
    >
      <p id={`${id}-message`}>{message}</p>
      <div className="actions">
        <button ref={stay} type="button" className="button" onClick={() => blocker.reset()}>
          Stay on this page
        </button>
        <button
          type="button"
          className="button button-danger"
          onClick={() => {
            armed.current = false;
            blocker.proceed();
          }}
        >
          {leaveLabel}
        </button>
      </div>
    </div>
  );
}
