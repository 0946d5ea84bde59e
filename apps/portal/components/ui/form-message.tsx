import type { FormState } from "@/lib/actions/form-state";

/** The form's overall outcome, announced to screen readers when it changes. */
export function FormMessage({ state }: { state: FormState }) {
  if (!state.message) return null;
  return (
    <p
      role={state.ok ? "status" : "alert"}
      data-testid="form-message"
      className={`rounded-md border px-3 py-2 text-sm ${state.ok ? "border-teal-200 bg-teal-50 text-teal-900" : "border-red-200 bg-red-50 text-red-900"}`}
    >
      {state.message}
    </p>
  );
}
