import Link from "next/link";

import { signOutAction } from "@/lib/actions/sign-out";
import { hasRole } from "@/lib/auth/actor";
import { currentActor } from "@/lib/auth/current-user";

import { LogoMark } from "./logo-mark";
import { MainNav } from "./main-nav";

export async function SiteHeader() {
  const actor = await currentActor();
  const links = actor
    ? [
        { href: "/apis", label: "Catalog" },
        { href: "/apps", label: "Apps" },
        { href: "/access-requests", label: "Access requests" },
        { href: "/traffic", label: "Traffic" },
        ...(hasRole(actor, "editor") ? [{ href: "/audit", label: "Audit log" }] : []),
        { href: "/api-reference", label: "API reference" },
        { href: "/settings", label: "Settings" },
      ]
    : [];

  return (
    <header className="relative border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-x-4 px-4 py-3 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded text-lg font-semibold tracking-tight text-slate-900">
          <LogoMark className="size-7" />
          Sluice
        </Link>
        {actor ? <MainNav links={links} /> : null}
        {actor ? (
          <div className="flex items-center gap-3 text-sm">
            <span className="hidden text-slate-600 xl:inline" data-testid="signed-in-as">
              {actor.email} <span aria-hidden="true">·</span> {actor.role}
            </span>
            <form action={signOutAction}>
              <button type="submit" className="rounded px-2 py-1 font-medium text-slate-700 hover:bg-slate-100">
                Sign out
              </button>
            </form>
          </div>
        ) : (
          <Link href="/login" className="rounded px-3 py-2 text-sm font-medium text-teal-800 hover:bg-teal-50">
            Sign in
          </Link>
        )}
      </div>
    </header>
  );
}
