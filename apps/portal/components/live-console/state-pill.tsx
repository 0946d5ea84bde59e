import type { Phase } from "@/lib/console/console-state";

const LABELS: Record<Phase, string> = {
  idle: "Not connected",
  connecting: "Connecting",
  connected: "Connected",
  reconnecting: "Reconnecting",
  closed: "Closed",
};

const TONES: Record<Phase, string> = {
  idle: "bg-slate-100 text-slate-700",
  connecting: "bg-sky-50 text-sky-800",
  connected: "bg-teal-50 text-teal-800",
  reconnecting: "bg-amber-50 text-amber-900",
  closed: "bg-red-50 text-red-800",
};

/** StatePill shows the connection's phase and what it waits for; e2e specs read data-phase. */
export function StatePill({ phase, detail }: { phase: Phase; detail: string }) {
  return (
    <p
      className={`rounded-full px-3 py-1 text-xs font-medium ${TONES[phase]}`}
      role="status"
      data-testid="console-state"
      data-phase={phase}
    >
      {LABELS[phase]}
      {detail ? `: ${detail}` : ""}
    </p>
  );
}
