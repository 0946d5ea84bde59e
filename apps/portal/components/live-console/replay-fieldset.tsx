import { Button } from "@/components/ui/button";
import type { ReplayRequest } from "@/lib/console/console-model";
import type { FieldMessage, SubInfo } from "@/lib/console/console-state";

interface Props {
  replay: ReplayRequest;
  replayError: FieldMessage | null;
  subInfo: SubInfo | null;
  onChange: (replay: ReplayRequest) => void;
  onReplay: () => void;
}

/** ReplayFieldset: where to replay from (an offset of the subscribed partition, or a time) and the Replay button. */
export function ReplayFieldset({ replay, replayError, subInfo, onChange, onReplay }: Props) {
  return (
    <fieldset className="mt-4 flex flex-wrap items-end gap-3 rounded-md border border-slate-200 p-3">
      <legend className="px-1 text-sm font-medium text-slate-800">Replay</legend>
      <div className="space-y-1">
        <label htmlFor="console-replay-kind" className="block text-xs text-slate-600">
          From
        </label>
        <select
          id="console-replay-kind"
          value={replay.kind}
          onChange={(e) => onChange(e.target.value === "time" ? { kind: "time", time: "" } : { kind: "offset", offset: "0" })}
          className="rounded-md border border-slate-300 px-2 py-2 text-sm"
        >
          <option value="offset">an offset</option>
          <option value="time">a time</option>
        </select>
      </div>
      {replay.kind === "offset" ? (
        <div className="space-y-1">
          <label htmlFor="console-replay-offset" className="block text-xs text-slate-600">
            Offset{subInfo ? ` (partition ${subInfo.partition})` : ""}
          </label>
          <input
            id="console-replay-offset"
            inputMode="numeric"
            value={replay.offset}
            onChange={(e) => onChange({ kind: "offset", offset: e.target.value })}
            aria-invalid={replayError?.field === "replayOffset" ? true : undefined}
            className="w-32 rounded-md border border-slate-300 px-3 py-2 font-mono text-sm aria-[invalid=true]:border-red-600"
          />
        </div>
      ) : (
        <div className="space-y-1">
          <label htmlFor="console-replay-time" className="block text-xs text-slate-600">
            Time (your time zone)
          </label>
          <input
            id="console-replay-time"
            type="datetime-local"
            step="1"
            value={replay.time}
            onChange={(e) => onChange({ kind: "time", time: e.target.value })}
            aria-invalid={replayError?.field === "replayTime" ? true : undefined}
            className="rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-red-600"
          />
        </div>
      )}
      <Button variant="secondary" onClick={onReplay} data-testid="console-replay">
        Replay
      </Button>
      {replayError ? (
        <p className="basis-full text-sm text-red-700" data-testid="error-console-replay">
          {replayError.message}
        </p>
      ) : null}
    </fieldset>
  );
}
