import type { ProbeResult } from "@/lib/probe-health";

type Props = {
  testId: string;
  name: string;
  purpose: string;
  result: ProbeResult;
};

// State is spelled out as text ("up"/"down") and marked with a distinct
// shape; colour is only a third cue.
export function StatusItem({ testId, name, purpose, result }: Props) {
  const up = result.state === "up";
  const detail = up ? `HTTP ${result.httpStatus} in ${result.latencyMs} ms` : result.reason;

  return (
    <li data-testid={testId} className="flex items-start gap-3 py-3">
      <span
        aria-hidden="true"
        className={
          up
            ? "mt-0.5 grid size-5 shrink-0 place-items-center rounded-full bg-emerald-600 text-xs font-bold text-white"
            : "mt-0.5 grid size-5 shrink-0 place-items-center rounded-sm bg-rose-600 text-xs font-bold text-white"
        }
      >
        {up ? "✓" : "✕"}
      </span>
      <div className="min-w-0 flex-1">
        {/* The explicit spaces keep the words apart in the text content too
            ("Gateway is up."), not just visually, for assistive tech and tests. */}
        <p className="flex flex-wrap items-baseline justify-between gap-x-2">
          <span className="font-medium text-slate-900">{name}</span>{" "}
          <span className={up ? "font-semibold text-emerald-800" : "font-semibold text-rose-800"}>
            <span className="sr-only">is </span>
            {result.state}
            <span className="sr-only">.</span>
          </span>
        </p>{" "}
        <p className="text-sm text-slate-600">{purpose}.</p> <p className="text-sm text-slate-500">{detail}</p>
      </div>
    </li>
  );
}
