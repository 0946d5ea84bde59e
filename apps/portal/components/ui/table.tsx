// Tables scroll sideways on narrow screens instead of squeezing their columns.
// `relative` makes the scroll box the containing block of the cells' sr-only
// labels (absolutely positioned): otherwise they escape its clipping and widen
// the whole page on a phone.
export function Table({ children, caption }: { children: React.ReactNode; caption?: string }) {
  return (
    <div className="relative overflow-x-auto rounded-lg border border-slate-200">
      <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        {children}
      </table>
    </div>
  );
}

export function Th({ children, className = "" }: { children?: React.ReactNode; className?: string }) {
  return (
    <th scope="col" className={`bg-slate-50 px-3 py-2 text-xs font-semibold tracking-wide text-slate-600 uppercase ${className}`}>
      {children}
    </th>
  );
}

export function Td({ children, className = "" }: { children?: React.ReactNode; className?: string }) {
  return <td className={`px-3 py-2 align-top text-slate-800 ${className}`}>{children}</td>;
}
