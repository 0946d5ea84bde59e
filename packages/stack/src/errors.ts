/**
 * StackError is a problem the person starting the stack can fix. The CLI prints its
 * message alone (no stack trace) and exits 1; anything else is a bug and is printed
 * in full.
 */
export class StackError extends Error {
  override name = "StackError";
}

/** postgres://user:secret@host/db → postgres://user:***@host/db, so logs never carry secrets. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(unparseable URL)";
  }
}
