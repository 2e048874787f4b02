/**
 * What the gateway refuses before forwarding a body: a body on GET or HEAD (it has no meaning there, and
 * an upstream that answers without reading it would reset the connection mid-stream), and a body larger
 * than any service accepts. Services apply their own, smaller limits (the delivery endpoint: 200 characters).
 */
export type BodyRefusal = 'body_not_allowed' | 'payload_too_large' | null;

export function bodyRefusal(method: string, contentLength: string | undefined, transferEncoding: string | undefined, maxBytes: number): BodyRefusal {
  const declared = contentLength === undefined ? 0 : Number(contentLength);
  const hasBody = transferEncoding !== undefined || declared > 0;
  const upper = method.toUpperCase();
  if ((upper === 'GET' || upper === 'HEAD') && hasBody) return 'body_not_allowed';
  if (Number.isFinite(declared) && declared > maxBytes) return 'payload_too_large';
  return null;
}
