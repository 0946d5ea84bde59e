import Link from "next/link";

import type { ChecklistStep } from "@/lib/domain/checklist/checklist-steps";

import { DismissChecklistButton } from "./checklist-forms";

/** The home page's getting-started checklist: each step from real state (lib/domain/checklist), with a link to do it. */
export function GettingStarted({ steps }: { steps: ChecklistStep[] }) {
  const done = steps.filter((s) => s.done).length;
  const next = steps.find((s) => !s.done);
  return (
    <section aria-labelledby="getting-started" className="mt-8 rounded-lg border border-slate-200 p-5" data-testid="checklist">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id="getting-started" className="text-lg font-semibold">
            Getting started
          </h2>
          <p className="text-sm text-slate-600" data-testid="checklist-progress">
            {done === steps.length
              ? "All done: your first client is connected. Hide this checklist when you no longer need it."
              : `${done} of ${steps.length} done.`}
          </p>
        </div>
        <DismissChecklistButton />
      </div>
      <ol className="mt-4 grid gap-3 md:grid-cols-2 lg:grid-cols-3">
        {steps.map((s, i) => (
          <li
            key={s.id}
            data-testid={`checklist-step-${s.id}`}
            data-done={s.done ? "true" : "false"}
            className={`flex flex-col rounded-lg border p-4 ${s === next ? "border-teal-600 ring-1 ring-teal-600" : "border-slate-200"} ${s.done ? "bg-slate-50" : ""}`}
          >
            <p className="flex items-center gap-2 font-semibold text-slate-900">
              <span
                aria-hidden
                className={`flex size-6 shrink-0 items-center justify-center rounded-full text-xs ${s.done ? "bg-teal-700 text-white" : "border border-slate-400 text-slate-700"}`}
              >
                {s.done ? "✓" : i + 1}
              </span>
              <span className={s.done ? "text-slate-600" : undefined}>{s.title}</span>
              <span className="sr-only">{s.done ? "(done)" : "(to do)"}</span>
            </p>
            <p className="mt-1 flex-1 text-sm text-slate-600">{s.text}</p>
            {s.done ? (
              <p className="mt-3 text-sm font-medium text-teal-800">Done</p>
            ) : (
              <Link href={s.href} className="mt-3 text-sm font-medium text-teal-800 hover:underline">
                {s.cta} →
              </Link>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
