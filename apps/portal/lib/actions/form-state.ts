// What a server action hands back to its form (React's useActionState).
export interface FormState {
  ok: boolean;
  /** One sentence for the top of the form (success or the overall error). */
  message?: string;
  /** Per-field messages, keyed by the input's name. */
  fieldErrors?: Record<string, string>;
  /**
   * What was submitted, handed back on failure: React resets a form after its
   * action, so inputs take these as defaultValue to keep what the user typed.
   * Password fields are never echoed.
   */
  values?: Record<string, string | string[]>;
  /** A one-time secret to show (a minted token, a new API key, an invitation link). */
  secret?: string;
  /** What the change would not do yet, shown before it is saved; the user confirms (resubmits with confirm=1) or edits. */
  warnings?: string[];
}

export const initialFormState: FormState = { ok: false };

/** The submitted value of a text input after a refused action, else `fallback`. */
export const formValue = (state: FormState, name: string, fallback = ""): string => {
  const v = state.values?.[name];
  return typeof v === "string" ? v : fallback;
};

/** The submitted values of a checkbox group after a refused action (none ticked → []), else `fallback`. */
export const formValues = (state: FormState, name: string, fallback: string[]): string[] => {
  if (!state.values) return fallback;
  const v = state.values[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};
