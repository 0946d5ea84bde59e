import type { Metadata } from "next";

import { PageHeader } from "@/components/ui/page-header";
import { pageActor } from "@/lib/auth/current-user";

import { ApiForm } from "../api-form";

export const metadata: Metadata = { title: "New API · Sluice" };

export default async function NewApiPage() {
  await pageActor("editor", "/apis/new");
  return (
    <>
      <PageHeader
        title="New API"
        breadcrumbs={[{ href: "/apis", label: "Catalog" }]}
        description="Name and version a Streaming API; you will add its endpoints next. You become its owner."
      />
      <ApiForm />
    </>
  );
}
