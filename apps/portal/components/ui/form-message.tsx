"use client";

import { useEffect, useRef } from "react";

import type { FormState } from "@/lib/actions/form-state";

/**
 * The form's overall outcome, announced to screen readers when it changes. When
 * the outcome names fields, the first of them in the form takes the focus and is
 * scrolled into view, so a long form never fails somewhere off screen.
 */
export function FormMessage({ state }: { state: FormState }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (state.fieldErrors && Object.keys(state.fieldErrors).length > 0) focusFirstInvalidField(ref.current?.closest("form"));
  }, [state]);
  if (!state.message) return null;
  return (
    <p
      ref={ref}
      role={state.ok ? "status" : "alert"}
      data-testid="form-message"
      className={`rounded-md border px-3 py-2 text-sm ${state.ok ? "border-teal-200 bg-teal-50 text-teal-900" : "border-red-200 bg-red-50 text-red-900"}`}
    >
      {state.message}
    </p>
  );
}

/**
 * Focuses the first field of the form marked invalid (aria-invalid, as the Field
 * components set it) or, for a group with one message (checkboxes, a computed
 * value), the first control beside the first field message (data-testid error-*).
 */
export function focusFirstInvalidField(form: HTMLFormElement | null | undefined) {
  const first = form?.querySelector<HTMLElement>('[aria-invalid="true"], [data-testid^="error-"]');
  if (!first) return;
  const control = first.matches("input, select, textarea")
    ? first
    : first.closest("fieldset, div")?.querySelector<HTMLElement>("input:not([type=hidden]), select, textarea");
  (control ?? first).scrollIntoView({ block: "center" });
  control?.focus({ preventScroll: true });
}
