"use client";

import { useActionState } from "react";

import { dismissChecklistAction, showChecklistAction } from "./checklist-actions";
import { CsrfField } from "@/components/ui/csrf";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";
import { initialFormState } from "@/lib/actions/form-state";

export function DismissChecklistButton() {
  const [state, action] = useActionState(dismissChecklistAction, initialFormState);
  return (
    <form action={action} className="flex flex-col items-end gap-1">
      <CsrfField />
      <SubmitButton variant="secondary" pendingText="Hiding…">
        Hide the checklist
      </SubmitButton>
      {state.ok ? null : <FormMessage state={state} />}
    </form>
  );
}

export function ShowChecklistButton() {
  const [state, action] = useActionState(showChecklistAction, initialFormState);
  return (
    <form action={action} className="space-y-2">
      <CsrfField />
      <SubmitButton variant="secondary" pendingText="Showing…">
        Show the getting-started checklist
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
