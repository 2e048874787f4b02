/** One failing field of a 422 answer (API.md: `errors: [{field, code, message}]`); `code` is stable. */
export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

/** The outcome of validating a body: the value as its schema types it, or every failing field. */
export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldProblem[] };
