"use client";

import { useActionState } from "react";

import { CsrfField } from "@/components/ui/csrf";
import { FormMessage } from "@/components/ui/form-message";
import { SubmitButton } from "@/components/ui/submit-button";
import { formValue, formValues, type FormState } from "@/lib/actions/form-state";

import { createPlanAction, deletePlanAction, updatePlanAction } from "./plan-actions";

const initial: FormState = { ok: false };

export interface PlanFormValues {
  id: string;
  name: string;
  description: string;
  limits: Record<(typeof LIMIT_FIELDS)[number]["name"], number | null>;
  autoApprove: boolean;
}

const LIMIT_FIELDS = [
  { name: "connections", label: "Connections", hint: "concurrent, per app" },
  { name: "subscriptionsPerConnection", label: "Subscriptions per connection", hint: "" },
  { name: "publishPerSecond", label: "Publishes per second", hint: "per app" },
  { name: "deliveredPerSecond", label: "Messages delivered per second", hint: "per app" },
  { name: "deliveredBytesPerSecond", label: "Bytes delivered per second", hint: "per app" },
] as const;

const control = "block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-teal-600";

/** Create a plan (no `plan`) or edit one; an empty limit box is no limit. */
export function PlanForm({ apiId, plan }: { apiId: string; plan?: PlanFormValues }) {
  const [state, action] = useActionState(plan ? updatePlanAction : createPlanAction, initial);
  const prefix = plan ? `plan-${plan.id}` : "new-plan";
  const errors = state.fieldErrors ?? {};
  const field = (name: string, label: string, input: React.ReactNode, hint?: string) => (
    <div>
      <label htmlFor={`${prefix}-${name}`} className="block text-sm font-medium text-slate-800">
        {label}
        {hint ? <span className="font-normal text-slate-500"> ({hint})</span> : null}
      </label>
      {input}
      {errors[name] ? (
        <p role="alert" className="mt-1 text-xs text-red-700">
          {errors[name]}
        </p>
      ) : null}
    </div>
  );
  return (
    <form action={action} className="space-y-3" noValidate aria-label={plan ? `Edit plan ${plan.name}` : "New plan"}>
      <CsrfField />
      <input type="hidden" name="apiId" value={apiId} />
      {plan ? <input type="hidden" name="planId" value={plan.id} /> : null}
      <div className="grid gap-3 sm:grid-cols-2">
        {field(
          "name",
          "Name",
          <input
            id={`${prefix}-name`}
            name="name"
            maxLength={40}
            required
            defaultValue={formValue(state, "name", plan?.name ?? "")}
            className={control}
          />,
        )}
        {field(
          "description",
          "Description",
          <input
            id={`${prefix}-description`}
            name="description"
            maxLength={500}
            defaultValue={formValue(state, "description", plan?.description ?? "")}
            className={control}
          />,
        )}
        {LIMIT_FIELDS.map((l) =>
          field(
            `limits.${l.name}`,
            l.label,
            <input
              id={`${prefix}-limits.${l.name}`}
              name={l.name}
              inputMode="numeric"
              placeholder="no limit"
              defaultValue={formValue(state, l.name, plan?.limits[l.name]?.toString() ?? "")}
              className={control}
            />,
            l.hint || undefined,
          ),
        )}
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          name="autoApprove"
          defaultChecked={formValues(state, "autoApprove", plan?.autoApprove ? ["on"] : []).includes("on")}
          className="accent-teal-700"
        />
        Approve access requests for this plan at once (no decider)
      </label>
      <FormMessage state={state} />
      <SubmitButton pendingText="Saving…">{plan ? "Save plan" : "Create plan"}</SubmitButton>
    </form>
  );
}

export function DeletePlanButton({ apiId, planId, name }: { apiId: string; planId: string; name: string }) {
  const [state, action] = useActionState(deletePlanAction, initial);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Delete the plan “${name}”? A plan that grants are under cannot be deleted.`)) e.preventDefault();
      }}
    >
      <CsrfField />
      <input type="hidden" name="apiId" value={apiId} />
      <input type="hidden" name="planId" value={planId} />
      <SubmitButton variant="secondary" pendingText="Deleting…" aria-label={`Delete plan ${name}`}>
        Delete
      </SubmitButton>
      {state.message && !state.ok ? (
        <p role="alert" className="mt-1 max-w-xs text-xs text-red-700">
          {state.fieldErrors?.planId ?? state.message}
        </p>
      ) : null}
    </form>
  );
}
