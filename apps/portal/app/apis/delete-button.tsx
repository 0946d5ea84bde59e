"use client";

import { useActionState } from "react";

import { CsrfField } from "@/components/ui/csrf";
import { SubmitButton } from "@/components/ui/submit-button";

import { deleteApiAction, deleteEndpointAction } from "./actions";
import { initialFormState } from "@/lib/actions/form-state";

/** A delete button that asks first; `confirmText` says what will be lost. */
export function DeleteButton({
  kind,
  apiId,
  endpointId,
  label,
  confirmText,
}: {
  kind: "api" | "endpoint";
  apiId: string;
  endpointId?: string;
  label: string;
  confirmText: string;
}) {
  const [state, action] = useActionState(kind === "api" ? deleteApiAction : deleteEndpointAction, initialFormState);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(confirmText)) e.preventDefault();
      }}
    >
      <CsrfField />
      <input type="hidden" name="apiId" value={apiId} />
      {endpointId ? <input type="hidden" name="endpointId" value={endpointId} /> : null}
      <SubmitButton variant="danger" pendingText="Deleting…">
        {label}
      </SubmitButton>
      {state.message && !state.ok ? (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {state.message}
        </p>
      ) : null}
    </form>
  );
}
