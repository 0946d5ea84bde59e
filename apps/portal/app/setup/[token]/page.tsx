import type { Metadata } from "next";
import Link from "next/link";

import { getDb } from "@/lib/db";
import { findAccountLink } from "@/lib/domain/users/find-account-link";

import { SetupForm } from "./setup-form";

export const metadata: Metadata = { title: "Set up your account · Sluice", referrer: "no-referrer" };

export default async function SetupPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = await findAccountLink({ db: getDb(), token });
  if (!link) {
    return (
      <div className="mx-auto max-w-md px-4 py-12">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">This link cannot be used</h1>
        <p className="mt-2 text-sm text-slate-600">
          It is invalid, expired or already used. For the first admin, restart Sluice to print a new setup link; otherwise ask an admin for
          a new invitation.
        </p>
        <p className="mt-4 text-sm">
          <Link href="/login" className="font-medium text-teal-800 hover:underline">
            Go to sign in
          </Link>
        </p>
      </div>
    );
  }
  const first = link.purpose === "first_admin";
  return (
    <div className="mx-auto max-w-md px-4 py-12">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">
        {first ? "Create the first admin" : link.purpose === "invite" ? "Welcome to Sluice" : "Choose a new password"}
      </h1>
      <p className="mt-1 text-sm text-slate-600">
        {first
          ? "This one-time link was printed when Sluice started. The account you create here administers this installation."
          : "This link works once."}
      </p>
      <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <SetupForm token={token} askEmail={first} email={link.user?.email} />
      </div>
    </div>
  );
}
