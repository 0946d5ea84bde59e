import Link from "next/link";
import { connection } from "next/server";

import { gatewayHealthUrl } from "@/lib/stack-config";

import { LogoMark } from "./logo-mark";
import { NavLink } from "./nav-link";

export async function SiteHeader() {
  // The link target comes from the runtime environment; without this, routes
  // prerendered at build time (e.g. the 404 page) would bake in the
  // build machine's value.
  await connection();
  const healthUrl = gatewayHealthUrl();

  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded text-lg font-semibold tracking-tight text-slate-900">
          <LogoMark className="size-7" />
          Sluice
        </Link>
        <nav aria-label="Main">
          <ul className="flex items-center gap-1">
            <li>
              <NavLink href="/">Overview</NavLink>
            </li>
            <li>
              <a
                href={healthUrl}
                className="rounded px-3 py-2 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900"
              >
                Gateway health
              </a>
            </li>
          </ul>
        </nav>
      </div>
    </header>
  );
}
