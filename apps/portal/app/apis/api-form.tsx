"use client";

import { useActionState } from "react";

import { ButtonLink } from "@/components/ui/button";
import { CsrfField } from "@/components/ui/csrf";
import { TextAreaField, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";

import { createApiAction, updateApiAction } from "./actions";
import { initialFormState, formValue } from "@/lib/actions/form-state";

export interface ApiFormDefaults {
  id?: string;
  name: string;
  version: string;
  description: string;
  tags: string[];
}

/** Creates an API, or edits one when `api.id` is set. */
export function ApiForm({ api }: { api?: ApiFormDefaults }) {
  const editing = Boolean(api?.id);
  const [state, action] = useActionState(editing ? updateApiAction : createApiAction, initialFormState);
  const errors = state.fieldErrors ?? {};
  return (
    <form action={action} className="max-w-2xl space-y-5" noValidate aria-label={editing ? "Edit API" : "New API"}>
      <CsrfField />
      {api?.id ? <input type="hidden" name="apiId" value={api.id} /> : null}
      <FormMessage state={state} />
      <div className="grid gap-5 sm:grid-cols-[minmax(0,1fr)_12rem]">
        <TextField
          label="Name"
          name="name"
          required
          maxLength={100}
          placeholder="e.g. Market data"
          defaultValue={formValue(state, "name", api?.name)}
          error={errors.name}
        />
        <TextField
          label="Version"
          name="version"
          required
          maxLength={50}
          placeholder="1.0.0"
          defaultValue={formValue(state, "version", api?.version ?? "1.0.0")}
          error={errors.version}
          hint="MAJOR.MINOR.PATCH, e.g. 1.0.0 or 2.1.0-beta.1"
        />
      </div>
      <TextAreaField
        label="Description"
        name="description"
        rows={4}
        maxLength={2000}
        className="font-sans"
        placeholder="What flows through this API, and who it is for"
        hint="Markdown: **bold**, `code`, lists and links. HTML is not shown."
        defaultValue={formValue(state, "description", api?.description)}
        error={errors.description}
      />
      <TextField
        label="Tags"
        name="tags"
        placeholder="market-data, eu"
        defaultValue={formValue(state, "tags", api?.tags.join(", "))}
        error={errors.tags}
        hint="Comma-separated; lower-case letters, digits and . _ - (up to 20 tags)"
      />
      <div className="flex flex-wrap gap-3">
        <SubmitButton pendingText={editing ? "Saving…" : "Creating…"}>{editing ? "Save changes" : "Create API"}</SubmitButton>
        <ButtonLink variant="secondary" href={api?.id ? `/apis/${api.id}` : "/apis"}>
          Cancel
        </ButtonLink>
      </div>
    </form>
  );
}
