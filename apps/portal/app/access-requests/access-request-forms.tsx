"use client";

import { useActionState, useState } from "react";

import { CsrfField } from "@/components/ui/csrf";
import { CheckboxGroup, SelectField, TextAreaField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";
import { formValue, formValues, type FormState } from "@/lib/actions/form-state";

import { approveAccessRequestAction, createAccessRequestAction, rejectAccessRequestAction, withdrawAccessRequestAction } from "./actions";

const initial: FormState = { ok: false };

export interface RequestableEndpoint {
  id: string;
  path: string;
  operations: string[];
}

export interface RequestablePlan {
  id: string;
  name: string;
  description: string;
  /** The limits as one line (formatPlanLimits). */
  limits: string;
  autoApprove: boolean;
}

/** An app's owner asks for the whole API or some of its endpoints, under one of its plans when it has plans. */
export function RequestAccessForm({
  apiId,
  apps,
  endpoints,
  preselected,
  plans,
}: {
  apiId: string;
  apps: { id: string; name: string }[];
  endpoints: RequestableEndpoint[];
  preselected: string[];
  plans: RequestablePlan[];
}) {
  const [state, action] = useActionState(createAccessRequestAction, initial);
  const [scope, setScope] = useState(formValue(state, "scope", preselected.length ? "endpoints" : "api"));
  const chosenPlan = formValue(state, "planId", plans[0]?.id ?? "");
  const endpointError =
    state.fieldErrors?.endpointIds ?? Object.entries(state.fieldErrors ?? {}).find(([k]) => k.startsWith("endpointIds."))?.[1];
  return (
    <form action={action} className="space-y-5" noValidate aria-label="Request access">
      <CsrfField />
      <input type="hidden" name="apiId" value={apiId} />
      <SelectField
        label="For the app"
        name="appId"
        required
        defaultValue={formValue(state, "appId", apps[0]?.id)}
        error={state.fieldErrors?.appId}
      >
        {apps.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </SelectField>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-slate-800">Access to</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name="scope"
            value="api"
            checked={scope === "api"}
            onChange={() => setScope("api")}
            className="accent-teal-700"
          />
          The whole API (every endpoint it has when the request is approved)
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name="scope"
            value="endpoints"
            checked={scope === "endpoints"}
            onChange={() => setScope("endpoints")}
            className="accent-teal-700"
          />
          Chosen endpoints
        </label>
      </fieldset>
      {scope === "endpoints" ? (
        <CheckboxGroup
          legend="Endpoints"
          name="endpointIds"
          options={endpoints.map((e) => ({ value: e.id, label: e.path, hint: `allows ${e.operations.join(" and ")}` }))}
          defaultChecked={formValues(state, "endpointIds", preselected)}
          error={endpointError}
        />
      ) : null}
      <CheckboxGroup
        legend="Operations"
        name="operations"
        options={[
          { value: "subscribe", label: "Subscribe" },
          { value: "publish", label: "Publish", hint: "only where the endpoint allows it" },
        ]}
        defaultChecked={formValues(state, "operations", ["subscribe"])}
        error={state.fieldErrors?.operations ?? state.fieldErrors?.["operations.0"]}
      />
      {plans.length ? (
        <fieldset className="space-y-2" aria-describedby={state.fieldErrors?.planId ? "planId-error" : undefined}>
          <legend className="text-sm font-medium text-slate-800">Plan</legend>
          {plans.map((p) => (
            <label key={p.id} className="flex items-start gap-2 text-sm">
              <input type="radio" name="planId" value={p.id} defaultChecked={p.id === chosenPlan} className="mt-1 accent-teal-700" />
              <span>
                <span className="font-medium">{p.name}</span>
                {p.autoApprove ? <span className="ml-2 text-xs text-teal-800">approved at once</span> : null}
                <span className="block text-xs text-slate-600" data-testid="plan-limits">
                  {p.limits}
                </span>
                {p.description ? <span className="block text-xs text-slate-500">{p.description}</span> : null}
              </span>
            </label>
          ))}
          {state.fieldErrors?.planId ? (
            <p id="planId-error" role="alert" className="text-sm text-red-700">
              {state.fieldErrors.planId}
            </p>
          ) : null}
        </fieldset>
      ) : null}
      <TextAreaField
        label="Justification"
        name="justification"
        required
        rows={3}
        maxLength={500}
        hint="What the app needs it for, in a few words (at most 500 characters). The API's owner reads it."
        defaultValue={formValue(state, "justification")}
        error={state.fieldErrors?.justification}
        className="font-sans"
      />
      {state.fieldErrors?.apiId ? (
        <p role="alert" className="text-sm text-red-700">
          {state.fieldErrors.apiId}
        </p>
      ) : null}
      <FormMessage state={state} />
      <SubmitButton pendingText="Sending…">Send request</SubmitButton>
    </form>
  );
}

/**
 * Approve, or reject with a reason. Once decided, the cell shows the outcome in
 * place of the forms; the row leaves the pending list at the next visit (the
 * actions do not re-render the inbox, so the outcome stays readable here).
 */
export function DecisionForms({ requestId }: { requestId: string }) {
  const [approved, approve] = useActionState(approveAccessRequestAction, initial);
  const [rejected, reject] = useActionState(rejectAccessRequestAction, initial);
  const done = approved.ok ? approved : rejected.ok ? rejected : undefined;
  if (done)
    return (
      <p role="status" className="text-sm text-teal-800">
        {done.message}
      </p>
    );
  return (
    <div className="flex w-64 flex-col gap-3">
      <form action={approve}>
        <CsrfField />
        <input type="hidden" name="requestId" value={requestId} />
        <SubmitButton pendingText="Approving…">Approve</SubmitButton>
        {approved.message ? (
          <p role="alert" className="mt-1 text-xs text-red-700">
            {approved.message}
          </p>
        ) : null}
      </form>
      <form action={reject} className="space-y-2" noValidate aria-label="Reject request">
        <CsrfField />
        <input type="hidden" name="requestId" value={requestId} />
        <TextAreaField
          label="Reason for rejecting"
          name="reason"
          rows={2}
          maxLength={500}
          defaultValue={formValue(rejected, "reason")}
          error={rejected.fieldErrors?.reason}
          className="font-sans"
        />
        <SubmitButton variant="danger" pendingText="Rejecting…">
          Reject
        </SubmitButton>
        {rejected.message && !rejected.fieldErrors ? (
          <p role="alert" className="text-xs text-red-700">
            {rejected.message}
          </p>
        ) : null}
      </form>
    </div>
  );
}

export function WithdrawButton({ requestId }: { requestId: string }) {
  const [state, action] = useActionState(withdrawAccessRequestAction, initial);
  return (
    <form action={action}>
      <CsrfField />
      <input type="hidden" name="requestId" value={requestId} />
      <SubmitButton variant="secondary" pendingText="Withdrawing…">
        Withdraw
      </SubmitButton>
      {state.message && !state.ok ? <p className="mt-1 text-xs text-red-700">{state.message}</p> : null}
    </form>
  );
}
