"use client";

import { useActionState } from "react";

import { TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";
import { initialFormState } from "@/lib/actions/form-state";

import { completeSetupAction } from "./actions";

export function SetupForm({ token, askEmail, email }: { token: string; askEmail: boolean; email?: string }) {
  const [state, action] = useActionState(completeSetupAction, initialFormState);
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormMessage state={state} />
      <input type="hidden" name="token" value={token} />
      {askEmail ? (
        <>
          <TextField
            label="E-mail"
            name="email"
            type="email"
            autoComplete="username"
            required
            defaultValue={state.values?.email as string | undefined}
            error={state.fieldErrors?.email}
          />
          <TextField
            label="Your name"
            name="displayName"
            autoComplete="name"
            defaultValue={state.values?.displayName as string | undefined}
            error={state.fieldErrors?.displayName}
          />
        </>
      ) : (
        <p className="text-sm text-slate-700">
          Account: <strong>{email}</strong>
        </p>
      )}
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 12 characters. A passphrase works well."
        error={state.fieldErrors?.password}
      />
      <TextField
        label="Repeat the password"
        name="passwordConfirm"
        type="password"
        autoComplete="new-password"
        required
        error={state.fieldErrors?.passwordConfirm}
      />
      <SubmitButton className="w-full" pendingText="Saving…">
        {askEmail ? "Create the admin account" : "Set password and sign in"}
      </SubmitButton>
    </form>
  );
}
