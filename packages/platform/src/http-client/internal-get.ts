/**
 * Calls from one service to another: signed like the gateway's calls (`internal-auth/`), so the
 * called service's signature check lets them in, and bounded by a deadline.
 */
import { signedHeaders } from '../internal-auth';

/** A signed service-to-service GET (for example a snapshot for a read model), with a deadline. */
export async function internalGet<T>(secret: string, baseUrl: string, path: string, timeoutMs = 5000): Promise<T> {
  const response = await fetch(new URL(path, baseUrl), {
    headers: { accept: 'application/json', ...signedHeaders(secret, { method: 'GET', url: path }) },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return (await response.json()) as T;
}
