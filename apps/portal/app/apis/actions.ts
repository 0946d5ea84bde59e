"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";

import { formObject, runFormAction } from "@/lib/actions/run-form-action";
import { createApi } from "@/lib/domain/apis/create-api";
import { deleteApi } from "@/lib/domain/apis/delete-api";
import { updateApi } from "@/lib/domain/apis/update-api";
import { createEndpoint } from "@/lib/domain/endpoints/create-endpoint";
import { deleteEndpoint } from "@/lib/domain/endpoints/delete-endpoint";
import { updateEndpoint } from "@/lib/domain/endpoints/update-endpoint";
import { AppError } from "@/lib/errors";
import { createApiInput, splitTags, updateApiInput } from "@/lib/validation/apis";
import { createEndpointInput, isRegistryFormat, type PayloadFormat, updateEndpointInput } from "@/lib/validation/endpoints";

import { foldFieldErrors } from "./form-errors";
import type { FormState } from "@/lib/actions/form-state";

const text = (form: FormData, name: string) => String(form.get(name) ?? "");

function apiInput(form: FormData) {
  return {
    name: text(form, "name"),
    version: text(form, "version"),
    description: text(form, "description"),
    tags: splitTags(text(form, "tags")),
  };
}

/** Runs the action and returns the typed values with the outcome, errors folded onto the form's inputs. */
async function withValues(form: FormData, run: () => Promise<FormState>): Promise<FormState> {
  const state = await run();
  return { ...state, fieldErrors: foldFieldErrors(state.fieldErrors, { keyParam: "key", path: "key" }), values: formObject(form) };
}

export async function createApiAction(_prev: FormState, form: FormData): Promise<FormState> {
  let id = "";
  const state = await withValues(form, () =>
    runFormAction(form, { role: "editor", read: apiInput, schema: createApiInput }, async ({ db, actor, input }) => {
      id = (await createApi({ db, actor, input })).id;
    }),
  );
  if (state.ok) {
    revalidatePath("/apis");
    redirect(`/apis/${id}`);
  }
  return state;
}

export async function updateApiAction(_prev: FormState, form: FormData): Promise<FormState> {
  const apiId = text(form, "apiId");
  const state = await withValues(form, () =>
    runFormAction(form, { role: "editor", read: apiInput, schema: updateApiInput }, async ({ db, actor, input }) => {
      await updateApi({ db, actor, apiId, input });
    }),
  );
  if (state.ok) {
    revalidatePath("/apis");
    redirect(`/apis/${apiId}`);
  }
  return state;
}

export async function deleteApiAction(_prev: FormState, form: FormData): Promise<FormState> {
  const state = await runFormAction(form, "editor", async ({ db, actor }) => {
    await deleteApi({ db, actor, apiId: text(form, "apiId") });
  });
  if (state.ok) {
    revalidatePath("/apis");
    redirect("/apis");
  }
  return state;
}

/**
 * The endpoint form: one key input that takes an exact key or `{param}`; schema and
 * examples as JSON text. JSON that does not parse is refused here, naming its field,
 * before the schema sees the rest.
 */
function endpointInput(form: FormData, { editing }: { editing: boolean }) {
  const errors: Record<string, string> = {};
  const keyText = text(form, "key").trim();
  // `{name}` is a parameter; a key that is a JSON object (a registry-encoded record key, `{"shop":"eu"}`) has quotes inside.
  const param = /^\{([^"]*)\}$/.exec(keyText);
  const parseJson = (name: string, empty: unknown) => {
    const raw = text(form, name).trim();
    if (raw === "") return empty;
    try {
      return JSON.parse(raw);
    } catch (err) {
      errors[name] = `is not valid JSON: ${(err as Error).message}`;
      return undefined;
    }
  };
  const examples = parseJson("examples", []);
  if (examples !== undefined && !Array.isArray(examples))
    errors.examples = 'must be a JSON array with one item per example message, e.g. [{"price": 1.5}]';
  const payloadFormat = text(form, "payloadFormat") || "json";
  const input = {
    topic: text(form, "topic").trim(),
    ...(param ? { keyParam: param[1], ...(editing ? { key: undefined } : {}) } : { key: text(form, "key") }),
    operations: form.getAll("operations").map(String),
    payloadFormat,
    jsonSchema: parseJson("jsonSchema", null),
    ...(isRegistryFormat(payloadFormat as PayloadFormat) ? { valueSchema: subjectInput(form, "value") } : {}),
    // The form always shows the keys' encoding: plain sends null, which makes an edited endpoint's keys plain again.
    keySchema: text(form, "keyEncoding") === "registry" ? subjectInput(form, "key") : null,
    description: text(form, "description"),
    examples,
  };
  const fieldErrors = Object.entries(errors).map(([field, message]) => ({ field, message }));
  if (fieldErrors.length) throw new AppError("validation_failed", 422, "Please fix the fields marked below.", fieldErrors);
  return input;
}

/**
 * The value (or key) schema fields: the strategy, the record name (sent only by
 * the record strategies: the topic strategy's input is hidden, and a stale value
 * must not count), and the version, `latest` or a number.
 */
function subjectInput(form: FormData, role: "value" | "key") {
  const strategy = text(form, `${role}Schema.strategy`) || "topic";
  const version = text(form, `${role}Schema.version`).trim();
  return {
    strategy,
    recordName: strategy === "topic" ? null : text(form, `${role}Schema.recordName`).trim(),
    // A version that is not a number goes through as text, for zod to name the field.
    version: version === "" || version === "latest" ? null : /^\d+$/.test(version) ? Number(version) : version,
  };
}

export async function saveEndpointAction(_prev: FormState, form: FormData): Promise<FormState> {
  const apiId = text(form, "apiId");
  const endpointId = text(form, "endpointId");
  let savedId = endpointId;
  const state = await withValues(form, () =>
    endpointId
      ? runFormAction(
          form,
          { role: "editor", read: (f) => endpointInput(f, { editing: true }), schema: updateEndpointInput },
          async ({ db, actor, input }) => {
            await updateEndpoint({ db, actor, endpointId, input });
          },
        )
      : runFormAction(
          form,
          { role: "editor", read: (f) => endpointInput(f, { editing: false }), schema: createEndpointInput },
          async ({ db, actor, input }) => {
            savedId = (await createEndpoint({ db, actor, apiId, input })).id;
          },
        ),
  );
  if (state.ok) {
    revalidatePath(`/apis/${apiId}`);
    redirect(`/apis/${apiId}/endpoints/${savedId}`);
  }
  return state;
}

export async function deleteEndpointAction(_prev: FormState, form: FormData): Promise<FormState> {
  const apiId = text(form, "apiId");
  const state = await runFormAction(form, "editor", async ({ db, actor }) => {
    await deleteEndpoint({ db, actor, endpointId: text(form, "endpointId") });
  });
  if (state.ok) {
    revalidatePath(`/apis/${apiId}`);
    redirect(`/apis/${apiId}`);
  }
  return state;
}
