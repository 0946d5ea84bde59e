import Link from "next/link";

import { signOutAction } from "@/lib/actions/sign-out";
import { hasRole } from "@/lib/auth/actor";
import { currentActor } from "@/lib/auth/current-user";

import { LogoMark } from "./logo-mark";
import { NavLink } from "./nav-link";

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
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded text-lg font-semibold tracking-tight text-slate-900">
          <LogoMark className="size-7" />
          Sluice
        </Link>
        {actor ? (
          <nav aria-label="Main" className="order-last w-full sm:order-none sm:w-auto">
            <ul className="flex flex-wrap items-center gap-1">
              {links.map((l) => (
                <li key={l.href}>
                  <NavLink href={l.href}>{l.label}</NavLink>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        {actor ? (
          <div className="flex items-center gap-3 text-sm">
            <span className="hidden text-slate-600 md:inline" data-testid="signed-in-as">
              {actor.email} <span className="text-slate-400">·</span> {actor.role}
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
