/**
 * How the last session ended: taken back by the service (a 401 answer) or ended by the person signing out.
 * A form keeps what was typed only in the first case: after signing out on purpose (a shared computer),
 * nothing typed is left behind for the next person, and the next sign-in opens the dashboard rather than
 * the page the last person was on.
 */
type SessionEnd = 'by-service' | 'signed-out';

let lastEnd: SessionEnd | null = null;

export function noteSessionEnd(how: SessionEnd): void {
  lastEnd = how;
}

/** A new session began: the way the last one ended no longer says anything. */
export function noteSignedIn(): void {
  lastEnd = null;
}

export function sessionEndedByService(): boolean {
  return lastEnd === 'by-service';
}

export function signedOutOnPurpose(): boolean {
  return lastEnd === 'signed-out';
}
