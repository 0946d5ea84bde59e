"use client";

import { useActionState } from "react";

import { CsrfField } from "@/components/ui/csrf";
import { TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SecretOnce } from "@/components/ui/secret-once";
import { SubmitButton } from "@/components/ui/submit-button";
import { initialFormState } from "@/lib/actions/form-state";

import { createApiKeyAction, revokeApiKeyAction } from "./actions";

export function CreateApiKeyForm() {
  const [state, action] = useActionState(createApiKeyAction, initialFormState);
  return (
    <div className="space-y-4">
      {state.secret ? <SecretOnce label="Your new API key" value={state.secret} testId="new-api-key" /> : null}
      <form action={action} className="grid gap-4 sm:grid-cols-[minmax(0,1fr)_10rem_auto] sm:items-end" noValidate>
        <CsrfField />
        <TextField
          label="Name"
          name="name"
          required
          placeholder="e.g. CI pipeline"
          defaultValue={state.values?.name as string | undefined}
          error={state.fieldErrors?.name}
        />
        <TextField
          label="Expires in (days)"
          name="expiresInDays"
          type="number"
          min={1}
          max={3650}
          placeholder="never"
          defaultValue={state.values?.expiresInDays as string | undefined}
          error={state.fieldErrors?.expiresInDays}
        />
        <SubmitButton pendingText="Creating…">Create key</SubmitButton>
      </form>
      {!state.secret ? <FormMessage state={state} /> : null}
    </div>
  );
}

export function RevokeApiKeyButton({ keyId, name }: { keyId: string; name: string }) {
  const [state, action] = useActionState(revokeApiKeyAction, initialFormState);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Revoke the API key "${name}"? Scripts using it stop working at once.`)) e.preventDefault();
      }}
    >
      <CsrfField />
      <input type="hidden" name="keyId" value={keyId} />
      <SubmitButton variant="secondary" pendingText="Revoking…" aria-label={`Revoke ${name}`}>
        Revoke
      </SubmitButton>
      {state.message && !state.ok ? <p className="mt-1 text-xs text-red-700">{state.message}</p> : null}
    </form>
  );
}
