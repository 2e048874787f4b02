/**
 * How the last session ended: taken back by the service (a 401 answer) or ended by the person signing out.
 * A form keeps what was typed only in the first case: after signing out on purpose (a shared computer),
 * nothing typed is left behind for the next person.
 */
let endedByService = false;

export function noteSessionEnd(byService: boolean): void {
  endedByService = byService;
}

export function sessionEndedByService(): boolean {
  return endedByService;
}
