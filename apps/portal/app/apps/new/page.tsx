import type { Metadata } from "next";

import { PageHeader } from "@/components/ui/page-header";
import { pageActor } from "@/lib/auth/current-user";

import { AppForm } from "../app-forms";

export const metadata: Metadata = { title: "New app · Sluice" };

export default async function NewAppPage() {
  await pageActor("viewer", "/apps/new");
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6">
      <PageHeader
        title="New app"
        breadcrumbs={[{ href: "/apps", label: "Apps" }]}
        description="You will own the app. An editor grants it endpoints; then you mint tokens for it."
      />
      <AppForm />
    </div>
  );
}
