/**
 * Calls from one service to another: signed like the gateway's calls (`internal-auth/`), so the
 * called service's signature check lets them in, and bounded in time (no answer for `timeoutMs`: an error).
 */
import { signedHeaders } from '../internal-auth';
import { getJson } from './get-json';

/** A signed service-to-service GET (for example a snapshot for a read model). */
export async function internalGet<T>(secret: string, baseUrl: string, path: string, timeoutMs = 5000): Promise<T> {
  const answer = await getJson(new URL(path, baseUrl).toString(), { headers: signedHeaders(secret, { method: 'GET', url: path }), timeoutMs });
  if (!answer.ok) throw new Error(`GET ${path} answered ${answer.status}`);
  return (await answer.json()) as T;
}
