/** Says that a form holds what was typed before the session ended, so it is checked before saving. */
export function DraftRestoredNotice({ shown }: { shown: boolean }) {
  if (!shown) return null;
  return (
    <p className="notice" role="status" data-testid="draft-restored">
      Your session ended while you were typing: what you had entered is back. Check it and save again.
    </p>
  );
}
