"use client";

import { useActionState } from "react";

import { CsrfField } from "@/components/ui/csrf";
import { CheckboxGroup, SelectField, TextAreaField, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SecretOnce } from "@/components/ui/secret-once";
import { SubmitButton } from "@/components/ui/submit-button";

import {
  addGrantAction,
  setGrantPlanAction,
  createAppAction,
  deleteAppAction,
  mintTokenAction,
  removeGrantAction,
  revokeAllTokensAction,
  revokeTokenAction,
  updateAppAction,
} from "./actions";
import { formValue, formValues, type FormState } from "@/lib/actions/form-state";

const initial: FormState = { ok: false };

/** Create (no app) or edit an app's name and description. */
export function AppForm({ app }: { app?: { id: string; name: string; description: string } }) {
  const [state, action] = useActionState(app ? updateAppAction : createAppAction, initial);
  return (
    <form action={action} className="space-y-4" noValidate aria-label={app ? "Edit app" : "Create app"}>
      <CsrfField />
      {app ? <input type="hidden" name="appId" value={app.id} /> : null}
      <TextField
        label="Name"
        name="name"
        required
        maxLength={100}
        defaultValue={formValue(state, "name", app?.name)}
        error={state.fieldErrors?.name}
      />
      <TextAreaField
        label="Description"
        name="description"
        rows={3}
        maxLength={2000}
        defaultValue={formValue(state, "description", app?.description)}
        error={state.fieldErrors?.description}
        className="font-sans"
      />
      <FormMessage state={state} />
      <SubmitButton pendingText="Saving…">{app ? "Save changes" : "Create app"}</SubmitButton>
    </form>
  );
}

export function DeleteAppButton({ appId, name }: { appId: string; name: string }) {
  const [state, action] = useActionState(deleteAppAction, initial);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Delete the app "${name}"? Its grants go, and every one of its tokens stops working at once.`)) e.preventDefault();
      }}
    >
      <CsrfField />
      <input type="hidden" name="appId" value={appId} />
      <SubmitButton variant="danger" pendingText="Deleting…">
        Delete app
      </SubmitButton>
      {state.message && !state.ok ? <p className="mt-1 text-xs text-red-700">{state.message}</p> : null}
    </form>
  );
}

export interface PlanChoice {
  id: string;
  name: string;
  apiName: string;
  apiVersion: string;
}

/** The plan select of the grant forms: no plan, or a plan of an API (the pattern must reach that API's endpoints only). */
function PlanOptions({ plans }: { plans: PlanChoice[] }) {
  return (
    <>
      <option value="">No plan (no limits)</option>
      {plans.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name} · {p.apiName} v{p.apiVersion}
        </option>
      ))}
    </>
  );
}

/** An endpoint of the catalog, offered by the grant form. */
export interface EndpointChoice {
  path: string;
  apiName: string;
  apiVersion: string;
}

export function AddGrantForm({ appId, plans, endpoints }: { appId: string; plans: PlanChoice[]; endpoints: EndpointChoice[] }) {
  const [state, action] = useActionState(addGrantAction, initial);
  return (
    <form action={action} className="space-y-3" noValidate aria-label="Add grant">
      <CsrfField />
      <input type="hidden" name="appId" value={appId} />
      <div className="grid gap-4 sm:grid-cols-[minmax(0,1fr)_auto] sm:items-start">
        <TextField
          label="Endpoint pattern"
          name="endpointPattern"
          required
          placeholder="/prices/{symbol}, /prices/* or /orders/eu"
          // Keyed by the submitted value: React resets a form after its action, and an input only takes its defaultValue when mounted.
          key={`pattern-${formValue(state, "endpointPattern")}`}
          defaultValue={formValue(state, "endpointPattern")}
          list="grant-endpoint-choices"
          autoComplete="off"
          hint="Type to search the catalog's endpoints, or write a path (/topic/key), a parameterised path as the catalog shows it (/topic/{param}: every key), or a wildcard ending in /* that covers every path below it; /* covers everything."
          error={state.fieldErrors?.endpointPattern}
          className="font-mono"
        />
        <datalist id="grant-endpoint-choices">
          {endpoints.map((e) => (
            <option key={e.path} value={e.path}>
              {e.apiName} v{e.apiVersion}
            </option>
          ))}
        </datalist>
        <CheckboxGroup
          legend="Operations"
          name="operations"
          options={[
            { value: "subscribe", label: "Subscribe" },
            { value: "publish", label: "Publish" },
          ]}
          defaultChecked={formValues(state, "operations", ["subscribe"])}
          error={state.fieldErrors?.operations ?? state.fieldErrors?.["operations.0"]}
          key={`ops-${JSON.stringify(state.values?.operations ?? "")}`}
        />
      </div>
      {plans.length ? (
        <SelectField
          label="Plan"
          name="planId"
          key={`plan-${formValue(state, "planId")}`}
          defaultValue={formValue(state, "planId")}
          hint="The plan's limits govern the pattern on every gateway; it must be a plan of the one API whose endpoints the pattern reaches."
          error={state.fieldErrors?.planId}
        >
          <PlanOptions plans={plans} />
        </SelectField>
      ) : null}
      <FormMessage state={state} />
      {state.warnings?.length ? (
        <ul
          className="list-disc space-y-1 rounded-md border border-amber-300 bg-amber-50 py-2 pr-3 pl-8 text-sm text-amber-950"
          data-testid="grant-warnings"
        >
          {state.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      ) : null}
      {/* "Check again" comes first: Enter in the field submits the form's first button, and must not confirm a warning unseen. */}
      <div className="flex flex-wrap gap-3">
        <SubmitButton variant={state.warnings?.length ? "secondary" : "primary"} pendingText="Adding…">
          {state.warnings?.length ? "Check again" : "Add grant"}
        </SubmitButton>
        {state.warnings?.length ? (
          <SubmitButton name="confirm" value="1" pendingText="Adding…">
            Grant anyway
          </SubmitButton>
        ) : null}
      </div>
    </form>
  );
}

/** Moves one grant to another plan, or to none. */
export function GrantPlanForm({
  appId,
  grantId,
  planId,
  plans,
}: {
  appId: string;
  grantId: string;
  planId: string | null;
  plans: PlanChoice[];
}) {
  const [state, action] = useActionState(setGrantPlanAction, initial);
  return (
    <form action={action} className="flex flex-wrap items-center gap-2">
      <CsrfField />
      <input type="hidden" name="appId" value={appId} />
      <input type="hidden" name="grantId" value={grantId} />
      <label className="sr-only" htmlFor={`grant-plan-${grantId}`}>
        Plan of the grant
      </label>
      <select
        id={`grant-plan-${grantId}`}
        name="planId"
        defaultValue={planId ?? ""}
        className="rounded-md border border-slate-300 px-2 py-1 text-xs shadow-sm"
      >
        <PlanOptions plans={plans} />
      </select>
      <SubmitButton variant="secondary" pendingText="Setting…" className="!px-2 !py-1 text-xs">
        Set plan
      </SubmitButton>
      {state.message && !state.ok ? (
        <p role="alert" className="w-full text-xs text-red-700">
          {state.fieldErrors?.planId ?? state.message}
        </p>
      ) : null}
    </form>
  );
}

export function RemoveGrantButton({ appId, grantId, pattern }: { appId: string; grantId: string; pattern: string }) {
  const [state, action] = useActionState(removeGrantAction, initial);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (
          !confirm(
            `Remove the grant ${pattern}? New tokens cannot ask for it; tokens already minted keep it until they expire or are revoked.`,
          )
        )
          e.preventDefault();
      }}
    >
      <CsrfField />
      <input type="hidden" name="appId" value={appId} />
      <input type="hidden" name="grantId" value={grantId} />
      <SubmitButton variant="secondary" pendingText="Removing…" aria-label={`Remove grant ${pattern}`}>
        Remove
      </SubmitButton>
      {state.message && !state.ok ? <p className="mt-1 text-xs text-red-700">{state.message}</p> : null}
    </form>
  );
}

export interface MintableGrant {
  pattern: string;
  operations: string[];
}

export function MintTokenForm({
  appId,
  grants,
  lifetimes,
  connect,
}: {
  appId: string;
  grants: MintableGrant[];
  lifetimes: { seconds: number; label: string }[];
  /** The gateway URLs to show under a new token (lib/connect-urls.ts). */
  connect?: { wsUrl: string; sseUrl: string };
}) {
  const [state, action] = useActionState(mintTokenAction, initial);
  const chosenSub = formValues(state, "sub", []);
  const chosenPub = formValues(state, "pub", []);
  const permissionErrors = Object.entries(state.fieldErrors ?? {}).filter(([field]) => field.startsWith("permissions"));
  return (
    <div className="space-y-4">
      {state.secret ? <SecretOnce label="Your new token" value={state.secret} testId="new-token" /> : null}
      {state.secret && connect ? (
        <p className="text-sm text-slate-700" data-testid="new-token-connect">
          Connect with it: WebSocket <code className="font-mono break-all">{connect.wsUrl}</code> (subprotocol{" "}
          <code className="font-mono">sluice.v1</code>), or Server-Sent Events{" "}
          <code className="font-mono break-all">{`curl -N -H "Authorization: Bearer <token>" '${connect.sseUrl}'`}</code>
        </p>
      ) : null}
      <form action={action} className="space-y-4" noValidate aria-label="Mint token">
        <CsrfField />
        <input type="hidden" name="appId" value={appId} />
        <fieldset className="space-y-2" aria-describedby={permissionErrors.length ? "permissions-error" : undefined}>
          <legend className="text-sm font-medium text-slate-800">Permissions</legend>
          <p className="text-xs text-slate-500">
            Choose, per grant, what the token may do. A token can never do more than the app&apos;s grants.
          </p>
          <ul className="divide-y divide-slate-100 rounded-md border border-slate-200">
            {grants.map((g) => (
              <li key={g.pattern} className="flex flex-wrap items-center gap-4 px-3 py-2 text-sm">
                <code className="min-w-0 flex-1 font-mono text-xs">{g.pattern}</code>
                {g.operations.includes("subscribe") ? (
                  <label className="flex items-center gap-1.5">
                    <input
                      type="checkbox"
                      name="sub"
                      value={g.pattern}
                      defaultChecked={chosenSub.includes(g.pattern)}
                      aria-label={`Subscribe ${g.pattern}`}
                      className="size-4 accent-teal-700"
                    />
                    Subscribe
                  </label>
                ) : null}
                {g.operations.includes("publish") ? (
                  <label className="flex items-center gap-1.5">
                    <input
                      type="checkbox"
                      name="pub"
                      value={g.pattern}
                      defaultChecked={chosenPub.includes(g.pattern)}
                      aria-label={`Publish ${g.pattern}`}
                      className="size-4 accent-teal-700"
                    />
                    Publish
                  </label>
                ) : null}
              </li>
            ))}
          </ul>
          {permissionErrors.length ? (
            <div id="permissions-error" className="text-sm text-red-700" data-testid="error-permissions">
              {permissionErrors.map(([field, message]) => (
                <p key={field}>{message}</p>
              ))}
            </div>
          ) : null}
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label="Lifetime"
            name="lifetimeSeconds"
            defaultValue={formValue(
              state,
              "lifetimeSeconds",
              String(lifetimes.find((l) => l.seconds === 86400)?.seconds ?? lifetimes[0]?.seconds),
            )}
            error={state.fieldErrors?.lifetimeSeconds}
          >
            {lifetimes.map((l) => (
              <option key={l.seconds} value={l.seconds}>
                {l.label}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Description"
            name="tokenDescription"
            maxLength={200}
            placeholder="e.g. kiosk in hall B"
            defaultValue={formValue(state, "tokenDescription")}
            error={state.fieldErrors?.tokenDescription}
          />
        </div>
        {!state.secret ? <FormMessage state={state} /> : null}
        <SubmitButton pendingText="Minting…">Mint token</SubmitButton>
      </form>
    </div>
  );
}

export function RevokeTokenButton({ appId, jti }: { appId: string; jti: string }) {
  const [state, action] = useActionState(revokeTokenAction, initial);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Revoke token ${jti}? Clients using it are disconnected within a second.`)) e.preventDefault();
      }}
    >
      <CsrfField />
      <input type="hidden" name="appId" value={appId} />
      <input type="hidden" name="jti" value={jti} />
      <SubmitButton variant="secondary" pendingText="Revoking…" aria-label={`Revoke token ${jti}`}>
        Revoke
      </SubmitButton>
      {state.message && !state.ok ? <p className="mt-1 text-xs text-red-700">{state.message}</p> : null}
    </form>
  );
}

export function RevokeAllTokensButton({ appId, name }: { appId: string; name: string }) {
  const [state, action] = useActionState(revokeAllTokensAction, initial);
  return (
    <form
      action={action}
      className="space-y-2"
      onSubmit={(e) => {
        if (!confirm(`Revoke every token of "${name}"? All its clients are disconnected within a second; tokens minted afterwards work.`))
          e.preventDefault();
      }}
    >
      <CsrfField />
      <input type="hidden" name="appId" value={appId} />
      <SubmitButton variant="danger" pendingText="Revoking…">
        Revoke all tokens
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
