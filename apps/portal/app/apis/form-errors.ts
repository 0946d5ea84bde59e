// Domain errors name nested fields (`examples.1`, `tags.0`, `keyParam`); a form
// shows one message beside each input, so list items fold into their input.
// A nested name that is not a list index (`valueSchema.recordName`) is an input
// of its own and keeps its full name.
export function foldFieldErrors(
  fieldErrors: Record<string, string> | undefined,
  rename: Record<string, string> = {},
): Record<string, string> | undefined {
  if (!fieldErrors) return undefined;
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrors)) {
    const [head, index] = field.split(".");
    const listItem = index !== undefined && /^\d+$/.test(index);
    const input = listItem || index === undefined ? (rename[head!] ?? head!) : field;
    const text = listItem ? `${head === "examples" ? "example" : "item"} ${Number(index) + 1}: ${message}` : message;
    out[input] ??= text;
  }
  return out;
}
