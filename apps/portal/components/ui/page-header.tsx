import Link from "next/link";

export function PageHeader({
  title,
  description,
  actions,
  breadcrumbs,
}: {
  title: React.ReactNode;
  description?: React.ReactNode;
  actions?: React.ReactNode;
  breadcrumbs?: { href: string; label: string }[];
}) {
  return (
    <div className="mb-6 border-b border-slate-200 pb-5">
      {breadcrumbs?.length ? (
        <nav aria-label="Breadcrumb" className="mb-2 text-sm text-slate-500">
          <ol className="flex flex-wrap items-center gap-1">
            {breadcrumbs.map((b) => (
              <li key={b.href} className="flex items-center gap-1">
                <Link href={b.href} className="hover:text-slate-800 hover:underline">
                  {b.label}
                </Link>
                <span aria-hidden>/</span>
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-bold tracking-tight text-balance text-slate-900">{title}</h1>
          {description ? <div className="mt-1 max-w-3xl text-sm text-pretty text-slate-600">{description}</div> : null}
        </div>
        {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
      </div>
    </div>
  );
}
