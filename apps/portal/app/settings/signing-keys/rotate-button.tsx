"use client";

import { useActionState } from "react";

import { CsrfField } from "@/components/ui/csrf";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";
import { initialFormState } from "@/lib/actions/form-state";

import { rotateSigningKeyAction } from "./actions";

export function RotateSigningKeyButton() {
  const [state, action] = useActionState(rotateSigningKeyAction, initialFormState);
  return (
    <form
      action={action}
      className="space-y-2"
      onSubmit={(e) => {
        if (!confirm("Rotate the signing key? New tokens are signed with a new key; tokens already issued keep working until they expire."))
          e.preventDefault();
      }}
    >
      <CsrfField />
      <SubmitButton pendingText="Rotating…">Rotate signing key</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
