"use client";

import Link from "next/link";
import { useActionState, useRef } from "react";

import { Button } from "@/components/ui/button";
import { CsrfField } from "@/components/ui/csrf";
import { CheckboxGroup, SelectField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";
import { formValue, formValues, initialFormState } from "@/lib/actions/form-state";

import { grantFromCatalogAction } from "./grant-actions";

export interface GrantableApp {
  id: string;
  name: string;
  own: boolean;
  owner: string | null;
}

export interface GrantableEndpoint {
  id: string;
  path: string;
  operations: string[];
}

const OPERATIONS = [
  { value: "subscribe", label: "Subscribe" },
  { value: "publish", label: "Publish" },
];

/**
 * "Grant to an app…": a dialog that grants one endpoint (the endpoint page) or
 * endpoints of an API (the API page) to an app, with the operations the
 * endpoints allow and optionally a plan of the API.
 */
export function GrantToApp({
  apiId,
  apps,
  endpoints,
  plans,
}: {
  apiId: string;
  apps: GrantableApp[];
  /** One endpoint: it is granted; several: the user picks. */
  endpoints: GrantableEndpoint[];
  plans: { id: string; name: string }[];
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [state, action] = useActionState(grantFromCatalogAction, initialFormState);
  const errors = state.fieldErrors ?? {};
  const allowed = OPERATIONS.filter((op) => endpoints.some((e) => e.operations.includes(op.value)));
  const own = apps.filter((a) => a.own);
  const others = apps.filter((a) => !a.own);
  const appId = formValue(state, "appId");
  const single = endpoints.length === 1 ? endpoints[0] : undefined;
  return (
    <>
      <Button variant="secondary" onClick={() => dialog.current?.showModal()} disabled={endpoints.length === 0}>
        Grant to an app…
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby="grant-to-app-title"
        className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-slate-200 p-6 shadow-xl backdrop:bg-slate-900/40"
      >
        <form action={action} className="space-y-4" noValidate aria-label="Grant to an app">
          <h2 id="grant-to-app-title" className="text-lg font-semibold">
            Grant {single ? <code className="font-mono text-base">{single.path}</code> : "endpoints"} to an app
          </h2>
          <CsrfField />
          <input type="hidden" name="apiId" value={apiId} />
          {apps.length ? (
            <SelectField label="App" name="appId" required defaultValue={appId} key={`app-${appId}`} error={errors.appId}>
              <option value="">Choose an app…</option>
              {own.length ? (
                <optgroup label="Your apps">
                  {own.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                    </option>
                  ))}
                </optgroup>
              ) : null}
              {others.length ? (
                <optgroup label="Other apps">
                  {others.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                      {a.owner ? ` (${a.owner})` : ""}
                    </option>
                  ))}
                </optgroup>
              ) : null}
            </SelectField>
          ) : (
            <p className="text-sm text-slate-600">
              There is no app yet. <Link href="/apps/new">Create an app</Link>, then grant it this.
            </p>
          )}
          {single ? (
            <input type="hidden" name="endpointIds" value={single.id} />
          ) : (
            <CheckboxGroup
              legend="Endpoints"
              name="endpointIds"
              options={endpoints.map((e) => ({ value: e.id, label: e.path, hint: e.operations.join(", ") }))}
              defaultChecked={formValues(
                state,
                "endpointIds",
                endpoints.map((e) => e.id),
              )}
              error={errors.endpointIds ?? errors["endpointIds.0"]}
              key={`endpoints-${JSON.stringify(state.values?.endpointIds ?? "")}`}
            />
          )}
          <CheckboxGroup
            legend="Operations"
            name="operations"
            options={allowed}
            defaultChecked={formValues(
              state,
              "operations",
              ["subscribe"].filter((op) => allowed.some((a) => a.value === op)),
            )}
            error={errors.operations ?? errors["operations.0"]}
            key={`ops-${JSON.stringify(state.values?.operations ?? "")}`}
          />
          {plans.length ? (
            <SelectField
              label="Plan"
              name="planId"
              defaultValue={formValue(state, "planId")}
              key={`plan-${formValue(state, "planId")}`}
              error={errors.planId}
              hint="The plan's limits govern the grant on every gateway."
            >
              <option value="">No plan (no limits)</option>
              {plans.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </SelectField>
          ) : null}
          <FormMessage state={state} />
          {state.ok && state.warnings?.length ? (
            <ul className="list-disc rounded-md border border-amber-300 bg-amber-50 py-2 pr-3 pl-8 text-sm text-amber-950">
              {state.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          ) : null}
          {state.ok && appId ? (
            <p className="text-sm">
              <Link href={`/apps/${appId}`} className="font-medium text-teal-800 underline">
                Open the app to mint a token
              </Link>
            </p>
          ) : null}
          <div className="flex flex-wrap gap-3">
            {apps.length ? <SubmitButton pendingText="Granting…">Grant</SubmitButton> : null}
            <Button variant="secondary" onClick={() => dialog.current?.close()}>
              Close
            </Button>
          </div>
        </form>
      </dialog>
    </>
  );
}
