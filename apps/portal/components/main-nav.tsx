"use client";

import { usePathname } from "next/navigation";
import { useRef, useState } from "react";

import { NavLink } from "./nav-link";

/**
 * The header's section links. From the lg breakpoint up they sit in the header;
 * on a phone they fold behind a "Menu" button (a disclosure: aria-expanded,
 * Escape closes it and returns focus to the button) so the header stays one row.
 */
export function MainNav({ links }: { links: { href: string; label: string }[] }) {
  const [openOn, setOpenOn] = useState<string | null>(null);
  const pathname = usePathname();
  const button = useRef<HTMLButtonElement>(null);
  // Open only on the page where it was opened: following a link closes it.
  const open = openOn === pathname;
  return (
    <nav
      aria-label="Main"
      className="ml-auto lg:ml-0"
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          setOpenOn(null);
          button.current?.focus();
        }
      }}
    >
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls="main-nav-links"
        onClick={() => setOpenOn(open ? null : pathname)}
        className="inline-flex items-center gap-2 rounded px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 lg:hidden"
      >
        <svg aria-hidden="true" viewBox="0 0 20 20" className="size-5" fill="currentColor">
          {open ? (
            <path d="M5.3 4.3a1 1 0 0 0-1.4 1.4L8.6 10l-4.7 4.3a1 1 0 1 0 1.4 1.4L10 11.4l4.3 4.3a1 1 0 0 0 1.4-1.4L11.4 10l4.3-4.3a1 1 0 0 0-1.4-1.4L10 8.6 5.3 4.3Z" />
          ) : (
            <path d="M3 5a1 1 0 0 1 1-1h12a1 1 0 1 1 0 2H4a1 1 0 0 1-1-1Zm0 5a1 1 0 0 1 1-1h12a1 1 0 1 1 0 2H4a1 1 0 0 1-1-1Zm1 4a1 1 0 1 0 0 2h12a1 1 0 1 0 0-2H4Z" />
          )}
        </svg>
        Menu
      </button>
      <ul
        id="main-nav-links"
        className={`${open ? "flex" : "hidden"} absolute inset-x-0 top-full z-20 flex-col gap-1 border-b border-slate-200 bg-white px-4 py-3 shadow-md lg:static lg:flex lg:flex-row lg:flex-wrap lg:items-center lg:border-0 lg:p-0 lg:shadow-none`}
      >
        {links.map((l) => (
          <li key={l.href}>
            <NavLink href={l.href}>{l.label}</NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
