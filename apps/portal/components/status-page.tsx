import { LogoMark } from "./logo-mark";

/** The branded frame of the 404 and error pages: the mark, a code, what happened, and ways back. */
export function StatusPage({
  code,
  title,
  children,
  actions,
}: {
  code: string;
  title: string;
  children: React.ReactNode;
  actions: React.ReactNode;
}) {
  return (
    <div className="mx-auto max-w-lg px-4 py-16 text-center" data-testid="status-page">
      <LogoMark className="mx-auto size-12" />
      <p className="mt-6 font-mono text-sm font-semibold text-teal-800">{code}</p>
      <h1 className="mt-1 text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
      <div className="mt-3 text-sm text-slate-600">{children}</div>
      <div className="mt-6 flex flex-wrap justify-center gap-3">{actions}</div>
    </div>
  );
}
