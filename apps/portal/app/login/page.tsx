import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { currentActor } from "@/lib/auth/current-user";

import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in · Sluice" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next = "/" } = await searchParams;
  if (await currentActor()) redirect(next.startsWith("/") && !next.startsWith("//") ? next : "/");
  return (
    <div className="mx-auto max-w-sm px-4 py-12">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">Sign in to Sluice</h1>
      <p className="mt-1 text-sm text-slate-600">Use the account an admin created for you.</p>
      <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <LoginForm next={next} />
      </div>
    </div>
  );
}
