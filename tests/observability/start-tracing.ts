/** Imported first by traced-system.ts: tracing must start before http, express and the clients load. */
import { startTracing } from '@pilot/platform/tracing';

export const tracing = startTracing('pilot-system');
