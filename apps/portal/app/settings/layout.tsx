import { NavLink } from "@/components/nav-link";
import { hasRole } from "@/lib/auth/actor";
import { pageActor } from "@/lib/auth/current-user";

export default async function SettingsLayout({ children }: { children: React.ReactNode }) {
  const actor = await pageActor("viewer", "/settings");
  const items = [
    { href: "/settings/account", label: "Account" },
    { href: "/settings/api-keys", label: "API keys" },
    ...(hasRole(actor, "admin")
      ? [
          { href: "/settings/users", label: "Users" },
          { href: "/settings/signing-keys", label: "Signing keys" },
          { href: "/settings/webhooks", label: "Webhook" },
        ]
      : []),
  ];
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <div className="grid grid-cols-1 gap-8 md:grid-cols-[12rem_minmax(0,1fr)]">
        <nav aria-label="Settings">
          <ul className="flex flex-wrap gap-1 md:flex-col">
            {items.map((i) => (
              <li key={i.href}>
                <NavLink href={i.href}>{i.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div>{children}</div>
      </div>
    </div>
  );
}
