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
}

export const initialFormState: FormState = { ok: false };
