/**
 * A process that was told to stop first drains: its /livez and /readyz answer 503 `draining`, so the
 * gateway's probe (every second) and Kubernetes stop sending it requests, while it goes on serving what
 * still arrives; only then does it close. One state per process: set once, by runService on SIGTERM.
 */
let draining = false;

export function beginDraining(): void {
  draining = true;
}

export function isDraining(): boolean {
  return draining;
}
