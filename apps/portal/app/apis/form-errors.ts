// Domain errors name nested fields (`examples.1`, `tags.0`, `keyParam`); a form
// shows one message beside each input, so nested names fold into their input.
export function foldFieldErrors(
  fieldErrors: Record<string, string> | undefined,
  rename: Record<string, string> = {},
): Record<string, string> | undefined {
  if (!fieldErrors) return undefined;
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrors)) {
    const [head, index] = field.split(".");
    const input = rename[head!] ?? head!;
    const text =
      index !== undefined && /^\d+$/.test(index) ? `${head === "examples" ? "example" : "item"} ${Number(index) + 1}: ${message}` : message;
    out[input] ??= text;
  }
  return out;
}
