import { formatArrival } from "@/lib/console/console-model";
import { MAX_SHOWN, type Row, type SubState } from "@/lib/console/console-state";

interface Props {
  rows: Row[];
  rate: number;
  total: number;
  subState: SubState;
  connected: boolean;
}

/** MessageList: the rate and count, then the newest messages and notices first. */
export function MessageList({ rows, rate, total, subState, connected }: Props) {
  return (
    <div className="mt-4">
      <div className="mb-2 flex items-center gap-4 text-xs text-slate-600">
        <span>
          <span data-testid="console-rate">{rate}</span> msg/s
        </span>
        <span>
          <span data-testid="console-total">{total}</span> received
        </span>
        {subState === "paused" ? <span className="font-medium text-amber-800">paused</span> : null}
        {rows.length >= MAX_SHOWN ? <span>showing the newest {MAX_SHOWN}</span> : null}
      </div>
      <ol
        className="max-h-[28rem] divide-y divide-slate-100 overflow-auto rounded-md border border-slate-200 bg-slate-50"
        data-testid="console-messages"
        aria-live="polite"
      >
        {rows.length === 0 ? (
          <li className="p-3 text-sm text-slate-500">{connected ? "Waiting for messages…" : "No messages yet. Click Try it to start."}</li>
        ) : null}
        {rows.map((r) =>
          r.kind === "notice" ? (
            <li
              key={r.id}
              className={`px-3 py-1.5 text-xs ${r.tone === "warn" ? "text-amber-900" : "text-slate-600"}`}
              data-testid="console-notice"
            >
              <span className="font-mono">{formatArrival(r.arrivedAt)}</span> {r.text}
            </li>
          ) : (
            <li key={r.id} className="px-3 py-2" data-testid="console-message">
              <div className="flex flex-wrap gap-x-4 text-xs text-slate-600">
                <span className="font-mono" title="arrival time">
                  {formatArrival(r.arrivedAt)}
                </span>
                <span className="font-mono" data-testid="console-message-position" title="partition:offset">
                  p{r.partition}:{r.seq}
                </span>
                <span className="font-mono break-all" data-testid="console-message-key" title="key">
                  {r.key}
                </span>
              </div>
              {r.error !== undefined ? (
                <p className="mt-1 text-xs text-amber-900" data-testid="console-message-error">
                  Not decoded: {r.error}. The record's raw value, base64:
                </p>
              ) : null}
              <pre
                className={`mt-1 overflow-auto text-xs ${r.error !== undefined ? "break-all whitespace-pre-wrap text-slate-600" : "text-slate-900"}`}
                data-testid="console-message-payload"
                data-kind={r.payloadKind}
              >
                {r.payload}
              </pre>
            </li>
          ),
        )}
      </ol>
    </div>
  );
}
