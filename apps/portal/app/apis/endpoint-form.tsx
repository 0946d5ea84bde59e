"use client";

import { useActionState, useState } from "react";

import { ButtonLink } from "@/components/ui/button";
import { CsrfField } from "@/components/ui/csrf";
import { CheckboxGroup, SelectField, TextAreaField, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";

import { saveEndpointAction } from "./actions";
import { initialFormState, formValue, formValues } from "@/lib/actions/form-state";

export interface EndpointFormDefaults {
  id?: string;
  topic: string;
  /** The exact key, or `{param}`. */
  key: string;
  operations: string[];
  payloadFormat: string;
  jsonSchema: string;
  examples: string;
  description: string;
}

const OPERATION_OPTIONS = [
  { value: "subscribe", label: "Subscribe", hint: "Clients receive the records" },
  { value: "publish", label: "Publish", hint: "Clients write records" },
];

/**
 * Adds an endpoint to an API or edits one. `topics` are Kafka's real topics;
 * null when Kafka could not be reached (the topic is then typed by hand and
 * checked on save).
 */
export function EndpointForm({
  apiId,
  topics,
  kafkaError,
  endpoint,
}: {
  apiId: string;
  topics: { name: string; partitions: number }[] | null;
  kafkaError?: string;
  endpoint?: EndpointFormDefaults;
}) {
  const [state, action] = useActionState(saveEndpointAction, initialFormState);
  const errors = state.fieldErrors ?? {};
  const topic = formValue(state, "topic", endpoint?.topic);
  const [format, setFormat] = useState(formValue(state, "payloadFormat", endpoint?.payloadFormat ?? "json"));
  const known = topics?.some((t) => t.name === topic);
  return (
    <form action={action} className="max-w-3xl space-y-6" noValidate aria-label={endpoint?.id ? "Edit endpoint" : "New endpoint"}>
      <CsrfField />
      <input type="hidden" name="apiId" value={apiId} />
      {endpoint?.id ? <input type="hidden" name="endpointId" value={endpoint.id} /> : null}
      <FormMessage state={state} />

      <fieldset className="grid gap-5 sm:grid-cols-2">
        <legend className="mb-2 text-sm text-slate-600">
          The path is <code className="rounded bg-slate-100 px-1">/topic/key</code>: clients subscribe to one key, or to every key with a
          parameter such as <code className="rounded bg-slate-100 px-1">{"{symbol}"}</code>.
        </legend>
        {topics ? (
          // Keyed by the submitted value: React resets a form after its action, and a
          // select only takes its defaultValue when mounted.
          <SelectField
            key={`topic-${topic}`}
            label="Kafka topic"
            name="topic"
            required
            defaultValue={topic}
            error={errors.topic}
            hint={topics.length ? "Topics in the Kafka cluster, with their partition counts" : "Kafka has no topics yet: create one first"}
          >
            <option value="">Choose a topic…</option>
            {topic && !known ? <option value={topic}>{topic} (not in Kafka)</option> : null}
            {topics.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name} — {t.partitions} partition{t.partitions === 1 ? "" : "s"}
              </option>
            ))}
          </SelectField>
        ) : (
          <TextField
            label="Kafka topic"
            name="topic"
            required
            defaultValue={topic}
            error={errors.topic}
            hint={kafkaError ?? "Kafka is not reachable right now; type the topic name."}
          />
        )}
        <TextField
          label="Key"
          name="key"
          required
          defaultValue={formValue(state, "key", endpoint?.key)}
          error={errors.key}
          placeholder="customer-42 or {customerId}"
          hint={
            <>
              An exact record key (may contain /), or <code>{"{name}"}</code> for every key of the topic.
            </>
          }
        />
      </fieldset>

      <CheckboxGroup
        legend="Allowed operations"
        name="operations"
        options={OPERATION_OPTIONS}
        defaultChecked={formValues(state, "operations", endpoint?.operations ?? ["subscribe"])}
        error={errors.operations}
        key={`ops-${JSON.stringify(state.values?.operations ?? "")}`}
      />

      <SelectField
        key={`format-${formValue(state, "payloadFormat")}`}
        label="Payload format"
        name="payloadFormat"
        defaultValue={format}
        onChange={(e) => setFormat(e.target.value)}
        error={errors.payloadFormat}
        hint="json: each record is a JSON value; text: UTF-8 text; bytes: anything (sent to clients as base64)"
      >
        <option value="json">json</option>
        <option value="text">text</option>
        <option value="bytes">bytes</option>
      </SelectField>

      {format === "json" ? (
        <TextAreaField
          label="JSON Schema (optional)"
          name="jsonSchema"
          rows={8}
          spellCheck={false}
          defaultValue={formValue(state, "jsonSchema", endpoint?.jsonSchema)}
          error={errors.jsonSchema}
          placeholder={'{\n  "type": "object",\n  "required": ["price"],\n  "properties": { "price": { "type": "number" } }\n}'}
          hint="Draft 2020-12. The gateway rejects published messages that do not match it. Only for the json format."
        />
      ) : null}

      <TextAreaField
        label="Example messages (optional)"
        name="examples"
        rows={5}
        spellCheck={false}
        defaultValue={formValue(state, "examples", endpoint?.examples)}
        error={errors.examples}
        placeholder={format === "json" ? '[{ "price": 187.2 }]' : format === "text" ? '["hello"]' : '["aGVsbG8="]'}
        hint="A JSON array, one item per example (up to 10). For text, strings; for bytes, base64 strings. They must match the schema."
      />

      <TextAreaField
        label="Description (optional)"
        name="description"
        rows={3}
        maxLength={2000}
        className="font-sans"
        defaultValue={formValue(state, "description", endpoint?.description)}
        error={errors.description}
      />

      <div className="flex flex-wrap gap-3">
        <SubmitButton pendingText="Saving…">{endpoint?.id ? "Save changes" : "Create endpoint"}</SubmitButton>
        <ButtonLink variant="secondary" href={endpoint?.id ? `/apis/${apiId}/endpoints/${endpoint.id}` : `/apis/${apiId}`}>
          Cancel
        </ButtonLink>
      </div>
    </form>
  );
}
