import type { Metadata } from "next";

import { PageHeader } from "@/components/ui/page-header";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { getOwnAccount } from "@/lib/domain/users/get-own-account";
import { formatDateTime } from "@/lib/format";
import { loadOr404 } from "@/lib/load-or-404";

import { ShowChecklistButton } from "../../checklist-forms";

export const metadata: Metadata = { title: "Account · Sluice" };

export default async function AccountPage() {
  const actor = await pageActor("viewer", "/settings/account");
  const me = await loadOr404(() => getOwnAccount({ db: getDb(), actor }));
  return (
    <>
      <PageHeader title="Your account" description="Who you are signed in as, and when you last signed in before this session." />
      <dl className="grid gap-x-6 gap-y-4 text-sm sm:grid-cols-2">
        <Fact term="Name">{me.displayName || <span className="text-slate-500">not set</span>}</Fact>
        <Fact term="E-mail">{me.email}</Fact>
        <Fact term="Role">{me.role}</Fact>
        <Fact term="Member since">{formatDateTime(me.createdAt)}</Fact>
        <Fact term="Previous sign-in">
          <span data-testid="previous-sign-in">{me.previousLoginAt ? formatDateTime(me.previousLoginAt) : "none before this one"}</span>
          <span className="block text-xs font-normal text-slate-500">Not you? Ask an admin for a password reset link.</span>
        </Fact>
      </dl>
      {me.checklistDismissedAt ? (
        <section aria-labelledby="checklist-heading" className="mt-8">
          <h2 id="checklist-heading" className="mb-2 text-base font-semibold">
            Getting started
          </h2>
          <p className="mb-3 text-sm text-slate-600">
            You hid the home page&apos;s checklist on {formatDateTime(me.checklistDismissedAt)}.
          </p>
          <ShowChecklistButton />
        </section>
      ) : null}
    </>
  );
}

function Fact({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-slate-500">{term}</dt>
      <dd className="mt-0.5 font-medium text-slate-900">{children}</dd>
    </div>
  );
}
