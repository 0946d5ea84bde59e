export default function Loading() {
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <p role="status" className="text-sm text-slate-500">
        Loading documentation…
      </p>
    </div>
  );
}
