/** The server's answer to an insert or update whose unique key (usually `_id`) is taken. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
