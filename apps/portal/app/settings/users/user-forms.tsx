"use client";

import { useActionState } from "react";

import { CsrfField } from "@/components/ui/csrf";
import { SelectField, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SecretOnce } from "@/components/ui/secret-once";
import { SubmitButton } from "@/components/ui/submit-button";
import { initialFormState } from "@/lib/actions/form-state";

import { inviteUserAction, updateUserAction } from "./actions";

const ROLE_OPTIONS = [
  { value: "viewer", label: "Viewer: browses the catalog, manages their own apps and tokens" },
  { value: "editor", label: "Editor: also edits APIs, endpoints and grants" },
  { value: "admin", label: "Admin: also manages users and signing keys" },
];

export function InviteUserForm() {
  const [state, action] = useActionState(inviteUserAction, initialFormState);
  return (
    <div className="space-y-4">
      {state.secret ? (
        <SecretOnce label={state.message ?? "Invitation link"} value={state.secret} testId="invite-url" />
      ) : (
        <FormMessage state={state} />
      )}
      <form action={action} className="grid gap-4 md:grid-cols-2" noValidate>
        <CsrfField />
        <TextField
          label="E-mail"
          name="email"
          type="email"
          required
          defaultValue={state.values?.email as string | undefined}
          error={state.fieldErrors?.email}
        />
        <TextField
          label="Name"
          name="displayName"
          defaultValue={state.values?.displayName as string | undefined}
          error={state.fieldErrors?.displayName}
        />
        <SelectField
          label="Role"
          name="role"
          defaultValue={(state.values?.role as string | undefined) ?? "viewer"}
          error={state.fieldErrors?.role}
        >
          {ROLE_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </SelectField>
        <div className="flex items-end">
          <SubmitButton pendingText="Inviting…">Invite</SubmitButton>
        </div>
      </form>
    </div>
  );
}

export function UserRow({ user, self }: { user: { id: string; email: string; role: string; disabled: boolean }; self: boolean }) {
  const [state, action] = useActionState(updateUserAction, initialFormState);
  return (
    <form action={action} className="flex flex-wrap items-center gap-2">
      <CsrfField />
      <input type="hidden" name="userId" value={user.id} />
      <label className="sr-only" htmlFor={`role-${user.id}`}>
        Role of {user.email}
      </label>
      <select id={`role-${user.id}`} name="role" defaultValue={user.role} className="rounded-md border border-slate-300 px-2 py-1 text-sm">
        <option value="viewer">viewer</option>
        <option value="editor">editor</option>
        <option value="admin">admin</option>
      </select>
      <SubmitButton variant="secondary" pendingText="Saving…">
        Save role
      </SubmitButton>
      {!self ? (
        <button
          type="submit"
          name="disabled"
          value={user.disabled ? "false" : "true"}
          className="rounded-md px-2 py-1 text-sm font-medium text-red-800 hover:bg-red-50"
        >
          {user.disabled ? "Enable" : "Disable"}
        </button>
      ) : null}
      {state.message ? (
        <span className={`text-xs ${state.ok ? "text-teal-800" : "text-red-700"}`}>
          {state.fieldErrors ? Object.values(state.fieldErrors).join("; ") : state.message}
        </span>
      ) : null}
    </form>
  );
}
