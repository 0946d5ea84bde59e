// What a server action hands back to its form (React's useActionState).
export interface FormState {
  ok: boolean;
  /** One sentence for the top of the form (success or the overall error). */
  message?: string;
  /** Per-field messages, keyed by the input's name. */
  fieldErrors?: Record<string, string>;
  /** A one-time secret to show (a minted token, a new API key, an invitation link). */
  secret?: string;
}

export const initialFormState: FormState = { ok: false };
