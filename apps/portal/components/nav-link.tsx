"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

// Client-side only to know the current path, so screen readers hear which
// section is open (aria-current) and the active item can be styled.
export function NavLink({ href, children }: { href: string; children: React.ReactNode }) {
  const pathname = usePathname();
  const active = pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      aria-current={active ? "page" : undefined}
      className="block rounded px-3 py-2 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 aria-[current=page]:bg-slate-100 aria-[current=page]:text-slate-900"
    >
      {children}
    </Link>
  );
}
