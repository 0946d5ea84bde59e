"use client";

import { useActionState, useState } from "react";

import { ButtonLink } from "@/components/ui/button";
import { CsrfField } from "@/components/ui/csrf";
import { CheckboxGroup, SelectField, TextAreaField, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";

import { saveEndpointAction } from "./actions";
import { createTopicAction } from "./topic-actions";
import { RegistrySchemaFields, type RegistrySchemaDefaults } from "./registry-schema-fields";
import { initialFormState, formValue, formValues, type FormState } from "@/lib/actions/form-state";

export interface EndpointFormDefaults {
  id?: string;
  topic: string;
  /** The exact key, or `{param}`. */
  key: string;
  operations: string[];
  payloadFormat: string;
  jsonSchema: string;
  /** For the registry formats. */
  valueSchema?: RegistrySchemaDefaults;
  /** Registry-encoded record keys (any format); undefined: plain keys. */
  keySchema?: RegistrySchemaDefaults;
  examples: string;
  description: string;
}

const OPERATION_OPTIONS = [
  { value: "subscribe", label: "Subscribe", hint: "Clients receive the records" },
  { value: "publish", label: "Publish", hint: "Clients write records" },
];

const REGISTRY_FORMATS = ["avro", "protobuf", "json-schema"];

/**
 * Adds an endpoint to an API or edits one. `topics` are Kafka's real topics;
 * null when Kafka could not be reached (the topic is then typed by hand and
 * checked on save). `registry`: whether the portal has a schema registry
 * (SCHEMA_REGISTRY_URL); without one the registry formats are not offered.
 * `topicCreation`: whether the form offers "Create a topic" (the stack's own
 * Kafka, or SLUICE_TOPIC_CREATION=on); a created topic is chosen at once.
 */
export function EndpointForm({
  apiId,
  topics,
  kafkaError,
  registry,
  topicCreation = false,
  endpoint,
}: {
  apiId: string;
  topics: { name: string; partitions: number }[] | null;
  kafkaError?: string;
  registry: boolean;
  topicCreation?: boolean;
  endpoint?: EndpointFormDefaults;
}) {
  const [state, action] = useActionState(saveEndpointAction, initialFormState);
  const errors = state.fieldErrors ?? {};
  // The topic created here, if any: offered in the list (the page's list is from before) and chosen.
  const [created, setCreated] = useState<{ name: string; partitions: number } | null>(null);
  const [topicState, topicAction] = useActionState(async (prev: FormState, form: FormData) => {
    const next = await createTopicAction(prev, form);
    if (next.ok) {
      const name = formValue(next, "name");
      setCreated({ name, partitions: Number(formValue(next, "partitions", "1")) });
      setLiveTopic(name);
    }
    return next;
  }, initialFormState);
  const topic = created && !state.values ? created.name : formValue(state, "topic", endpoint?.topic);
  const topicChoices = topics && created && !topics.some((t) => t.name === created.name) ? [...topics, created] : topics;
  const [format, setFormat] = useState(formValue(state, "payloadFormat", endpoint?.payloadFormat ?? "json"));
  // The topic as chosen now: the registry's subjects and the computed subject follow it.
  const [liveTopic, setLiveTopic] = useState(topic);
  const known = topicChoices?.some((t) => t.name === topic);
  const isRegistryFormat = REGISTRY_FORMATS.includes(format);
  const [keyEncoding, setKeyEncoding] = useState(formValue(state, "keyEncoding", endpoint?.keySchema ? "registry" : "plain"));
  // An endpoint that already has a registry format keeps it offered, so editing it without a registry shows what it is.
  const offerRegistry = registry || REGISTRY_FORMATS.includes(endpoint?.payloadFormat ?? "");
  return (
    <div className="max-w-3xl space-y-6">
      {topicCreation ? <CreateTopicForm state={topicState} action={topicAction} /> : null}
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
          {topicChoices ? (
            // Keyed by the submitted value: React resets a form after its action, and a
            // select only takes its defaultValue when mounted.
            <SelectField
              key={`topic-${topic}`}
              label="Kafka topic"
              name="topic"
              required
              defaultValue={topic}
              onChange={(e) => setLiveTopic(e.target.value)}
              error={errors.topic}
              hint={
                topicChoices.length
                  ? "Topics in the Kafka cluster, with their partition counts"
                  : topicCreation
                    ? "Kafka has no topics yet: create one above"
                    : "Kafka has no topics yet: create one first"
              }
            >
              <option value="">Choose a topic…</option>
              {topic && !known ? <option value={topic}>{topic} (not in Kafka)</option> : null}
              {topicChoices.map((t) => (
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
              onChange={(e) => setLiveTopic(e.target.value)}
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
                An exact record key (may contain /), or <code>{"{name}"}</code> for every key of the topic. With registry-encoded keys, the
                decoded key as JSON text (<code>{'{"shop":"eu","id":7}'}</code>).
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

        {/* Radios, not a select: their labels stay clear of the "Key" field's name. */}
        <fieldset className="space-y-3">
          <legend className="text-sm font-medium text-slate-900">Keys</legend>
          <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm" key={`keys-${formValue(state, "keyEncoding")}`}>
            {[
              { value: "plain", label: "Plain bytes", offered: true },
              { value: "registry", label: "Schema registry subject", offered: offerRegistry || Boolean(endpoint?.keySchema) },
            ]
              .filter((option) => option.offered)
              .map((option) => (
                <label key={option.value} className="flex items-center gap-2">
                  <input
                    type="radio"
                    name="keyEncoding"
                    value={option.value}
                    defaultChecked={keyEncoding === option.value}
                    onChange={(e) => setKeyEncoding(e.target.value)}
                  />
                  {option.label}
                </label>
              ))}
          </div>
          <p className="text-xs text-slate-500">
            {keyEncoding === "registry" ? (
              <>
                The record keys were written by a schema registry serializer. The key in the path is the decoded key as JSON text: a string
                key is itself (<code>c1</code>), any other key its compact JSON in the schema&apos;s field order (<code>42</code>,{" "}
                <code>{'{"shop":"eu","id":7}'}</code>).
              </>
            ) : offerRegistry ? (
              "The path key is the record key's bytes as UTF-8 text. Choose the registry when a registry serializer wrote the keys."
            ) : (
              "The path key is the record key's bytes as UTF-8 text. Registry-encoded keys need a schema registry (SCHEMA_REGISTRY_URL)."
            )}
          </p>
          {errors.keySchema ? (
            <p className="text-sm text-red-700" data-testid="error-keySchema">
              {errors.keySchema}
            </p>
          ) : null}
          {keyEncoding === "registry" ? (
            <RegistrySchemaFields
              side="key"
              topic={liveTopic}
              errors={errors}
              defaults={{
                strategy: formValue(state, "keySchema.strategy", endpoint?.keySchema?.strategy ?? "topic"),
                recordName: formValue(state, "keySchema.recordName", endpoint?.keySchema?.recordName ?? ""),
                version: formValue(state, "keySchema.version", endpoint?.keySchema?.version ?? "latest"),
              }}
            />
          ) : null}
        </fieldset>

        <SelectField
          key={`format-${formValue(state, "payloadFormat")}`}
          label="Payload format"
          name="payloadFormat"
          defaultValue={format}
          onChange={(e) => setFormat(e.target.value)}
          error={errors.payloadFormat}
          hint={
            <>
              json: each record is a JSON value; text: UTF-8 text; bytes: anything (sent to clients as base64).
              {offerRegistry
                ? " avro, protobuf, json-schema: records in the schema registry's wire format, delivered and published as JSON."
                : " The schema registry formats (avro, protobuf, json-schema) need a schema registry: the portal has none (SCHEMA_REGISTRY_URL is not set)."}
            </>
          }
        >
          <option value="json">json</option>
          <option value="text">text</option>
          <option value="bytes">bytes</option>
          {offerRegistry
            ? REGISTRY_FORMATS.map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))
            : null}
        </SelectField>

        {isRegistryFormat ? (
          <RegistrySchemaFields
            topic={liveTopic}
            errors={errors}
            defaults={{
              strategy: formValue(state, "valueSchema.strategy", endpoint?.valueSchema?.strategy ?? "topic"),
              recordName: formValue(state, "valueSchema.recordName", endpoint?.valueSchema?.recordName ?? ""),
              version: formValue(state, "valueSchema.version", endpoint?.valueSchema?.version ?? "latest"),
            }}
          />
        ) : null}

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
          placeholder={format === "json" || isRegistryFormat ? '[{ "price": 187.2 }]' : format === "text" ? '["hello"]' : '["aGVsbG8="]'}
          hint="A JSON array, one item per example (up to 10). For text, strings; for bytes, base64 strings. They must match the schema."
        />

        <TextAreaField
          label="Description (optional)"
          name="description"
          rows={3}
          maxLength={2000}
          className="font-sans"
          hint="Markdown: **bold**, `code`, lists and links. HTML is not shown."
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
    </div>
  );
}

/**
 * "Create a topic": its own form beside the endpoint's (forms do not nest), in
 * a disclosure that stays open while it reports a problem.
 */
function CreateTopicForm({ state, action }: { state: FormState; action: (form: FormData) => void }) {
  const errors = state.fieldErrors ?? {};
  return (
    <details className="rounded-lg border border-slate-200 p-4" open={Boolean(state.message) || undefined}>
      <summary className="cursor-pointer text-sm font-medium text-slate-900">Create a Kafka topic…</summary>
      <form action={action} className="mt-4 space-y-4" noValidate aria-label="Create a topic">
        <CsrfField />
        <p className="text-sm text-slate-600">
          For trying an endpoint of your own without Kafka&apos;s tools. Replication follows the cluster&apos;s default.
        </p>
        <div className="grid gap-4 sm:grid-cols-[minmax(0,1fr)_10rem]">
          <TextField
            label="Topic name"
            name="topicName"
            required
            key={`topic-name-${formValue(state, "topicName")}`}
            defaultValue={state.ok ? "" : formValue(state, "topicName")}
            error={errors.topicName}
            placeholder="orders"
            autoComplete="off"
            hint="A–Z a–z 0–9 . _ -, at most 249; not starting with __"
            className="font-mono"
          />
          <TextField
            label="Partitions"
            name="topicPartitions"
            type="number"
            min={1}
            max={100}
            key={`topic-partitions-${formValue(state, "topicPartitions")}`}
            defaultValue={state.ok ? "1" : formValue(state, "topicPartitions", "1")}
            error={errors.topicPartitions}
            hint="1–100"
          />
        </div>
        <FormMessage state={state} />
        <SubmitButton variant="secondary" pendingText="Creating…">
          Create topic
        </SubmitButton>
      </form>
    </details>
  );
}
