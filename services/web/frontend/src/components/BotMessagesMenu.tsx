import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useEffect, useId, useRef, useState } from 'react';
import { api } from '../api';
import type { NotificationSettings } from '../types';
import { ErrorMessage } from './ErrorMessage';

const SETTINGS_KEY = ['notification-settings'] as const;
const SETTINGS_PATH = '/api/workspace/notifications';

/**
 * Beside the account name: what the sign-in bot tells this account. Each box is saved as it changes: it
 * shows the new value while the change is on its way, then what the service answered (a failed save
 * puts the box back and says why).
 */
export function BotMessagesMenu({ admin }: { admin: boolean }) {
  const client = useQueryClient();
  const headingId = useId();
  // Asked for only once the menu is opened: a workspace page does not wait on, nor pay for, this call.
  const [open, setOpen] = useState(false);
  const settings = useQuery({ queryKey: SETTINGS_KEY, queryFn: () => api<NotificationSettings>(SETTINGS_PATH), enabled: open });
  const [changing, setChanging] = useState<Partial<NotificationSettings>>({});
  const change = useSafeMutation({
    mutationFn: (body: Partial<NotificationSettings>) => api<NotificationSettings>(SETTINGS_PATH, { method: 'PUT', body }),
    onSuccess: (saved) => client.setQueryData(SETTINGS_KEY, saved),
    onSettled: () => setChanging({}),
  });
  const choose = (body: Partial<NotificationSettings>) => {
    setChanging(body);
    change.mutate(body);
  };
  const current = settings.data ? { ...settings.data, ...changing } : undefined;
  const menu = useCloseOnOutsidePointer();

  return (
    <details ref={menu} className="bot-messages" data-testid="bot-messages" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Bot messages</summary>
      {/* Drawn only while open: closed, the page holds no second "campaigns" or "platforms" label. */}
      {open ? (
        <div className="bot-messages-panel">
          <fieldset aria-labelledby={headingId} disabled={!current || change.isPending}>
            <legend id={headingId}>The sign-in bot tells you</legend>
            <label>
              <input type="checkbox" name="reviews" checked={current?.reviews ?? false} onChange={(event) => choose({ reviews: event.target.checked })} />
              when your campaigns and platforms are approved, rejected, activated or paused
            </label>
            {admin ? (
              <label>
                <input type="checkbox" name="queue" checked={current?.queue ?? false} onChange={(event) => choose({ queue: event.target.checked })} />
                how many records wait for review (at most every 10 minutes)
              </label>
            ) : null}
          </fieldset>
          {settings.isPending ? (
            <p className="loading" role="status">
              Loading…
            </p>
          ) : null}
          <p className="help" role="status">
            {change.isSuccess && !change.isPending ? 'Saved.' : ''}
          </p>
          <ErrorMessage error={settings.error ?? change.error} />
        </div>
      ) : null}
    </details>
  );
}

/**
 * A menu that floats over the page closes when the person points elsewhere, or presses Escape (focus goes
 * back to its summary: a box being saved is disabled meanwhile, so focus may have left the menu).
 */
function useCloseOnOutsidePointer() {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const closeOutside = (event: PointerEvent) => {
      const details = ref.current;
      if (details?.open && event.target instanceof Node && !details.contains(event.target)) details.open = false;
    };
    const closeOnEscape = (event: globalThis.KeyboardEvent) => {
      const details = ref.current;
      if (event.key !== 'Escape' || !details?.open) return;
      details.open = false;
      details.querySelector('summary')?.focus();
    };
    document.addEventListener('pointerdown', closeOutside);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('pointerdown', closeOutside);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, []);
  return ref;
}
