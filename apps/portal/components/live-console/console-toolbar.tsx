import { Button } from "@/components/ui/button";
import type { ConsoleEndpoint } from "@/lib/console/console-model";
import type { ConsoleState } from "@/lib/console/console-state";

interface Props {
  endpoint: ConsoleEndpoint;
  state: Pick<ConsoleState, "phase" | "subState" | "typedKey" | "keyError" | "error">;
  connected: boolean;
  onKeyChange: (key: string) => void;
  onStart: () => void;
  onStop: () => void;
  onPause: () => void;
  onResume: () => void;
  onClear: () => void;
}

/** ConsoleToolbar: the key of a parameterised endpoint, Try it / Disconnect, Pause / Resume, Clear, and the console's errors. */
export function ConsoleToolbar({ endpoint, state, connected, onKeyChange, onStart, onStop, onPause, onResume, onClear }: Props) {
  const { phase, subState, typedKey, keyError, error } = state;
  return (
    <>
      <div className="mt-4 flex flex-wrap items-end gap-3">
        {endpoint.key === null ? (
          <div className="space-y-1">
            <label htmlFor="console-key" className="block text-sm font-medium text-slate-800">
              Key <code className="text-xs">{`{${endpoint.keyParam}}`}</code>
            </label>
            <input
              id="console-key"
              value={typedKey}
              onChange={(e) => onKeyChange(e.target.value)}
              disabled={connected}
              aria-invalid={keyError ? true : undefined}
              aria-describedby={keyError ? "console-key-error" : undefined}
              placeholder="e.g. AAPL"
              className="block w-56 rounded-md border border-slate-300 px-3 py-2 font-mono text-sm aria-[invalid=true]:border-red-600"
            />
          </div>
        ) : null}
        {connected ? (
          <Button variant="secondary" onClick={onStop} data-testid="console-stop">
            Disconnect
          </Button>
        ) : (
          <Button onClick={onStart} disabled={phase === "connecting"} data-testid="console-try">
            {phase === "connecting" ? "Connecting…" : "Try it"}
          </Button>
        )}
        {connected && subState === "live" ? (
          <Button variant="secondary" onClick={onPause} data-testid="console-pause">
            Pause
          </Button>
        ) : null}
        {connected && subState === "paused" ? (
          <Button variant="secondary" onClick={onResume} data-testid="console-resume">
            Resume
          </Button>
        ) : null}
        <Button variant="ghost" onClick={onClear} data-testid="console-clear">
          Clear
        </Button>
      </div>
      {keyError ? (
        <p id="console-key-error" className="mt-1 text-sm text-red-700" data-testid="error-console-key">
          {keyError}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="console-error">
          {error}
        </p>
      ) : null}
    </>
  );
}
