export function SiteFooter() {
  return (
    <footer className="border-t border-slate-200 bg-slate-50">
      <div className="mx-auto flex max-w-5xl flex-col gap-1 px-4 py-6 text-sm text-slate-600 sm:flex-row sm:justify-between sm:px-6">
        <p>Sluice: self-hosted streaming API portal and gateway for Apache Kafka.</p>
        <p>Apache Kafka is a trademark of the Apache Software Foundation.</p>
      </div>
    </footer>
  );
}
