"use client";

import { useActionState, useState } from "react";

import { TextField } from "@/components/ui/field";
import { FormMessage, focusFirstInvalidField } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";
import { initialFormState } from "@/lib/actions/form-state";
import { PASSWORD_RULES, passwordProblem } from "@/lib/validation/password-rules";

import { completeSetupAction } from "./actions";

// Serves the first admin, invitations and password resets: every place a password is set.
export function SetupForm({ token, askEmail, email }: { token: string; askEmail: boolean; email?: string }) {
  const [state, action] = useActionState(completeSetupAction, initialFormState);
  const [password, setPassword] = useState("");
  // Errors found before sending; the server checks the same rules (lib/validation/password-rules).
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const errors = { ...state.fieldErrors, ...localErrors };

  const checkBeforeSending = (event: React.FormEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    const data = new FormData(form);
    const found: Record<string, string> = {};
    const problem = passwordProblem(String(data.get("password") ?? ""));
    if (problem) found.password = problem;
    else if (data.get("password") !== data.get("passwordConfirm")) found.passwordConfirm = "does not match the password";
    setLocalErrors(found);
    if (Object.keys(found).length > 0) {
      event.preventDefault();
      // After React has rendered the messages and aria-invalid.
      requestAnimationFrame(() => focusFirstInvalidField(form));
    }
  };

  return (
    <form action={action} onSubmit={checkBeforeSending} className="space-y-4" noValidate>
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
            error={errors.email}
          />
          <TextField
            label="Your name"
            name="displayName"
            autoComplete="name"
            defaultValue={state.values?.displayName as string | undefined}
            error={errors.displayName}
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
        value={password}
        onChange={(e) => {
          setPassword(e.target.value);
          if (localErrors.password && !passwordProblem(e.target.value)) setLocalErrors(({ password: _, ...rest }) => rest);
        }}
        hint={<PasswordRules password={password} />}
        error={errors.password}
      />
      <TextField
        label="Repeat the password"
        name="passwordConfirm"
        type="password"
        autoComplete="new-password"
        required
        error={errors.passwordConfirm}
      />
      <SubmitButton className="w-full" pendingText="Saving…">
        {askEmail ? "Create the admin account" : "Set password and sign in"}
      </SubmitButton>
    </form>
  );
}

/** The rules, each marked as met while the user types (inline: the field's hint is a paragraph). */
function PasswordRules({ password }: { password: string }) {
  return (
    <span data-testid="password-rules" className="flex flex-col gap-0.5">
      {PASSWORD_RULES.map((rule) => {
        const met = password.length > 0 && rule.met(password);
        return (
          <span key={rule.label} data-met={met} className={met ? "text-teal-800" : "text-slate-500"}>
            <span aria-hidden="true">{met ? "✓ " : "• "}</span>
            {rule.label}
            <span className="sr-only">{met ? " (met)" : ""}</span>
          </span>
        );
      })}
    </span>
  );
}
