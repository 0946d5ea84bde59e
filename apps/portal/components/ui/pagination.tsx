import Link from "next/link";

/** "Next page" for keyset-paginated lists; keeps the other query parameters. */
export function NextPageLink({
  nextCursor,
  params,
  basePath,
}: {
  nextCursor: string | null;
  params: Record<string, string | undefined>;
  basePath: string;
}) {
  const first = Boolean(params.cursor);
  if (!nextCursor && !first) return null;
  const with_ = (cursor?: string) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v && k !== "cursor") q.set(k, v);
    if (cursor) q.set("cursor", cursor);
    const s = q.toString();
    return s ? `${basePath}?${s}` : basePath;
  };
  return (
    <nav aria-label="Pagination" className="mt-4 flex justify-between text-sm">
      {first ? (
        <Link href={with_()} className="font-medium text-teal-800 hover:underline">
          ← First page
        </Link>
      ) : (
        <span />
      )}
      {nextCursor ? (
        <Link href={with_(nextCursor)} className="font-medium text-teal-800 hover:underline" data-testid="next-page">
          Next page →
        </Link>
      ) : null}
    </nav>
  );
}
