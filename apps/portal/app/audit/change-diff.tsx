// The before/after of one audit entry as a field-by-field table, changed fields
// highlighted. Server-rendered: the entries are plain JSON and need no script.

type Json = unknown;

export interface FieldChange {
  field: string;
  before: Json;
  after: Json;
  kind: "added" | "removed" | "changed" | "unchanged";
}

const isRecord = (v: Json): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);

/** Top-level fields of two snapshots; a missing side (creation, deletion) counts as absent fields. */
export function diffSnapshots(before: Json, after: Json): FieldChange[] {
  if (!isRecord(before) && !isRecord(after)) {
    if (before === null && after === null) return [];
    return [{ field: "(value)", before, after, kind: same(before, after) ? "unchanged" : "changed" }];
  }
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return fields.map((field) => {
    const inBefore = field in b;
    const inAfter = field in a;
    const kind = !inBefore ? "added" : !inAfter ? "removed" : same(b[field], a[field]) ? "unchanged" : "changed";
    return { field, before: b[field], after: a[field], kind };
  });
}

const show = (v: Json) => (v === undefined ? "—" : JSON.stringify(v, null, 1).replace(/\n\s*/g, " "));
const KIND_STYLE: Record<FieldChange["kind"], string> = {
  added: "bg-teal-50",
  removed: "bg-red-50",
  changed: "bg-amber-50",
  unchanged: "",
};

export function ChangeDiff({ before, after }: { before: Json; after: Json }) {
  const changes = diffSnapshots(before, after);
  if (changes.length === 0) return <p className="text-xs text-slate-500">No snapshot recorded for this action.</p>;
  // Changed fields first, so the point of the entry is on top.
  const ordered = [...changes.filter((c) => c.kind !== "unchanged"), ...changes.filter((c) => c.kind === "unchanged")];
  return (
    <table className="mt-2 w-full text-left text-xs" data-testid="audit-diff">
      <thead>
        <tr className="text-slate-500">
          <th scope="col" className="py-1 pr-3 font-medium">
            Field
          </th>
          <th scope="col" className="py-1 pr-3 font-medium">
            Before
          </th>
          <th scope="col" className="py-1 font-medium">
            After
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 align-top">
        {ordered.map((c) => (
          <tr key={c.field} className={KIND_STYLE[c.kind]} data-testid="audit-diff-field" data-field={c.field} data-change={c.kind}>
            <th scope="row" className="py-1 pr-3 font-mono font-medium text-slate-800">
              {c.field}
              {c.kind !== "unchanged" ? (
                <span className="ml-1 font-sans text-[10px] font-semibold uppercase text-slate-600">{c.kind}</span>
              ) : null}
            </th>
            <td className="max-w-xs py-1 pr-3 font-mono break-all text-slate-700">{c.kind === "added" ? "—" : show(c.before)}</td>
            <td className="max-w-xs py-1 font-mono break-all text-slate-900">{c.kind === "removed" ? "—" : show(c.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
