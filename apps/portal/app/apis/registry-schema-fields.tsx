"use client";

// A registry subject in the endpoint form: the value schema of an avro,
// protobuf or json-schema endpoint, or (role "key") the key schema of an
// endpoint of any format whose record keys a registry serializer wrote. Both
// are the subject name strategy, the record name for the record strategies,
// the subject it makes (read-only: the portal computes and stores it), the
// version the gateway encodes with, the registry's subjects for the topic (of
// that side) and the chosen version's schema. The registry is asked through
// the portal's own API (/api/v1, the session cookie), as the topic changes in
// the browser. Inputs are named `<role>Schema.*`, as the API's fields.
import { useEffect, useState } from "react";

import { SelectField, TextField } from "@/components/ui/field";
import type { components } from "@/lib/api/generated/v1";
import { type SubjectRole, subjectFor } from "@/lib/catalog/subject-name";

type TopicSubject = components["schemas"]["TopicSubject"];
type SubjectVersion = components["schemas"]["SubjectVersion"];
type Strategy = TopicSubject["strategy"];

export interface RegistrySchemaDefaults {
  strategy: string;
  recordName: string;
  /** `latest` or a version number. */
  version: string;
}

const strategyLabels = (role: SubjectRole): Record<Strategy, string> => ({
  topic: `topic — <topic>-${role}`,
  record: "record — <record full name>",
  "topic-record": "topic-record — <topic>-<record full name>",
});

/** What differs between the two sides. */
const ROLE_TEXT = {
  value: {
    legend: "Value schema (schema registry)",
    versionLabel: "Version for publishing",
    versionHint: "What the gateway encodes published messages with",
    placeholder: "com.acme.Order",
  },
  key: {
    legend: "Key schema (schema registry)",
    versionLabel: "Version for path keys",
    versionHint: "What the gateway encodes a path key with, to find its partition and as the key of a publish",
    placeholder: "com.acme.OrderKey",
  },
} as const;

/** The subject a strategy makes, as the portal computes it on save (shown only; the server's is stored). */
function previewSubject(role: SubjectRole, strategy: string, topic: string, recordName: string): string | null {
  if (!topic || !(strategy in strategyLabels(role)) || (strategy !== "topic" && !recordName)) return null;
  return subjectFor(strategy as Strategy, topic, recordName || null, role);
}

/** GETs a portal API route; the problem's detail becomes the error message. */
async function getJson<T>(
  path: string,
  signal: AbortSignal,
): Promise<{ ok: true; body: T } | { ok: false; status: number; message: string }> {
  const res = await fetch(`/api/v1${path}`, { credentials: "same-origin", headers: { Accept: "application/json" }, signal });
  const body = await res.json().catch(() => null);
  if (res.ok) return { ok: true, body: body as T };
  return { ok: false, status: res.status, message: body?.detail ?? `The portal answered HTTP ${res.status}.` };
}

/** Pretty-prints a schema text that is JSON (Avro, JSON Schema); a .proto file is shown as is. */
function prettySchema(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function RegistrySchemaFields({
  side: role = "value",
  topic,
  defaults,
  errors,
}: {
  /** The values' subject (default) or the keys' (not `role`: that is an ARIA attribute to linters). */
  side?: SubjectRole;
  topic: string;
  defaults: RegistrySchemaDefaults;
  errors: Record<string, string>;
}) {
  const field = `${role}Schema`;
  const labels = strategyLabels(role);
  const says = ROLE_TEXT[role];
  const [strategy, setStrategy] = useState(defaults.strategy || "topic");
  const [recordName, setRecordName] = useState(defaults.recordName);
  const [version, setVersion] = useState(defaults.version || "latest");
  const [subjects, setSubjects] = useState<{ items: TopicSubject[] } | { error: string } | null>(null);
  const [latest, setLatest] = useState<{ version: SubjectVersion } | { error: string } | null>(null);
  const [shown, setShown] = useState<{ version: SubjectVersion } | { error: string } | null>(null);
  const subject = previewSubject(role, strategy, topic.trim(), recordName.trim());

  // The registry's subjects for the topic.
  useEffect(() => {
    setSubjects(null);
    if (!topic.trim()) return;
    const abort = new AbortController();
    getJson<{ configured: boolean; items: TopicSubject[] }>(
      `/topics/${encodeURIComponent(topic.trim())}/subjects?role=${role}`,
      abort.signal,
    )
      .then((r) => setSubjects(r.ok ? { items: r.body.items } : { error: r.message }))
      .catch(() => undefined);
    return () => abort.abort();
  }, [topic, role]);

  // The subject's latest version: the versions the select offers.
  useEffect(() => {
    setLatest(null);
    if (!subject) return;
    const abort = new AbortController();
    getJson<SubjectVersion>(`/subjects/${encodeURIComponent(subject)}/versions/latest`, abort.signal)
      .then((r) => setLatest(r.ok ? { version: r.body } : { error: r.message }))
      .catch(() => undefined);
    return () => abort.abort();
  }, [subject]);

  // The chosen version's schema (the latest's is already there).
  useEffect(() => {
    setShown(null);
    if (!subject || version === "latest") return;
    const abort = new AbortController();
    getJson<SubjectVersion>(`/subjects/${encodeURIComponent(subject)}/versions/${encodeURIComponent(version)}`, abort.signal)
      .then((r) => setShown(r.ok ? { version: r.body } : { error: r.message }))
      .catch(() => undefined);
    return () => abort.abort();
  }, [subject, version]);

  const latestNumber = latest && "version" in latest ? latest.version.version : 0;
  // Versions 1..latest (a deleted one answers 404 when chosen); a pinned version the registry no longer lists stays offered.
  const versions = Array.from({ length: latestNumber }, (_, i) => String(latestNumber - i));
  if (version !== "latest" && !versions.includes(version)) versions.unshift(version);
  const schema = version === "latest" ? latest : shown;

  return (
    <fieldset className="space-y-4 rounded-lg border border-slate-200 p-4" aria-labelledby={`${role}-schema-legend`}>
      <legend id={`${role}-schema-legend`} className="px-1 text-sm font-medium text-slate-900">
        {says.legend}
      </legend>
      <div className="grid gap-5 sm:grid-cols-2">
        <SelectField
          label="Subject name strategy"
          name={`${field}.strategy`}
          value={strategy}
          onChange={(e) => setStrategy(e.target.value)}
          error={errors[`${field}.strategy`] ?? errors[field]}
          hint="How the producers' serializer names the subject, as Kafka's serializers do"
        >
          {Object.entries(labels).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        {strategy === "topic" ? null : (
          <TextField
            label="Record name"
            name={`${field}.recordName`}
            required
            value={recordName}
            onChange={(e) => setRecordName(e.target.value)}
            error={errors[`${field}.recordName`]}
            placeholder={says.placeholder}
            hint="The record's full name (namespace and name)"
          />
        )}
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        <div className="space-y-1 text-sm">
          <p className="font-medium text-slate-900">Subject</p>
          <p>
            <code className="rounded bg-slate-100 px-1 break-all" data-testid={`${role}-subject`}>
              {subject ?? "—"}
            </code>
          </p>
          <p className="text-xs text-slate-500">Computed from the strategy; records are decoded with the schema id they carry.</p>
          {errors[`${field}.subject`] ? (
            <p className="text-sm text-red-700" data-testid={`error-${field}.subject`}>
              {errors[`${field}.subject`]}
            </p>
          ) : null}
        </div>
        <SelectField
          label={says.versionLabel}
          name={`${field}.version`}
          value={version}
          onChange={(e) => setVersion(e.target.value)}
          error={errors[`${field}.version`]}
          hint={says.versionHint}
        >
          <option value="latest">latest{latestNumber ? ` (now ${latestNumber})` : ""}</option>
          {versions.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </SelectField>
      </div>

      <div className="text-sm">
        <p className="font-medium text-slate-900">Subjects in the registry for this topic</p>
        {!topic.trim() ? (
          <p className="text-xs text-slate-500">Choose a topic first.</p>
        ) : subjects === null ? (
          <p className="text-xs text-slate-500">Asking the registry…</p>
        ) : "error" in subjects ? (
          <p className="text-sm text-amber-800">{subjects.error}</p>
        ) : subjects.items.length === 0 ? (
          <p className="text-xs text-slate-500">None yet: register the schema (for example {`${topic.trim()}-${role}`}) first.</p>
        ) : (
          <ul className="mt-1 flex flex-wrap gap-2" data-testid={role === "value" ? "topic-subjects" : "topic-key-subjects"}>
            {subjects.items.map((s) => (
              <li key={s.subject}>
                <button
                  type="button"
                  className="rounded border border-slate-300 px-2 py-0.5 font-mono text-xs hover:bg-slate-100"
                  title={`Use ${s.subject} (${s.strategy} strategy)`}
                  onClick={() => {
                    setStrategy(s.strategy);
                    setRecordName(s.recordName ?? "");
                  }}
                >
                  {s.subject} <span className="text-slate-500">({s.strategy})</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>

      <div className="text-sm">
        <p className="font-medium text-slate-900">
          Schema
          {schema && "version" in schema
            ? ` — version ${schema.version.version}, ${schema.version.schemaType}, id ${schema.version.id}`
            : ""}
        </p>
        {!subject ? (
          <p className="text-xs text-slate-500">The subject needs a topic{strategy === "topic" ? "" : " and a record name"}.</p>
        ) : schema === null ? (
          <p className="text-xs text-slate-500">Asking the registry…</p>
        ) : "error" in schema ? (
          <p className="text-sm text-amber-800" data-testid={`${role}-schema-problem`}>
            {schema.error}
          </p>
        ) : (
          <pre
            className="mt-1 max-h-80 overflow-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-xs"
            data-testid={`${role}-schema-text`}
          >
            {prettySchema(schema.version.schema)}
          </pre>
        )}
      </div>
    </fieldset>
  );
}
