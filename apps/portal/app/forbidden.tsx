import Link from "next/link";

export default function Forbidden() {
  return (
    <div className="mx-auto max-w-md px-4 py-16 text-center">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">Not allowed</h1>
      <p className="mt-2 text-sm text-slate-600">Your role does not give access to this page. An admin can change your role.</p>
      <Link href="/" className="mt-4 inline-block text-sm font-medium text-teal-800 hover:underline">
        Back to the catalog
      </Link>
    </div>
  );
}
