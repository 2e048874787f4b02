/** Copies a text (a key) to the clipboard and says whether it did, next to the button. */
import { useState } from 'react';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <>
      <button type="button" className="button" onClick={() => void copy()}>
        {label}
      </button>
      <span aria-live="polite">{copied === 'yes' ? ' Copied.' : copied === 'failed' ? ' Copy failed: select the key and copy it by hand.' : ''}</span>
    </>
  );
}
