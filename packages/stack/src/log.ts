// One prefix per process, padded so the columns line up, coloured on a terminal.
import type { Readable } from "node:stream";
import { createInterface } from "node:readline";

const COLORS = [36, 35, 33, 32, 34, 31, 96, 95];
const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const PREFIX_WIDTH = 8;
let nextColor = 0;

export type Logger = (line: string) => void;

export function prefixedLogger(name: string): Logger {
  const color = COLORS[nextColor++ % COLORS.length];
  const label = `[${name}]`.padEnd(PREFIX_WIDTH + 2);
  const prefix = useColor ? `\x1b[${color}m${label}\x1b[0m` : label;
  return (line) => process.stdout.write(`${prefix} ${line}\n`);
}

/** Logs every line of a child's output with the child's prefix. */
export function pipeLines(stream: Readable | null, log: Logger): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
    // Skip blank lines, including ones that hold only colour codes (mvn -q prints those).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes (ESC [ … m) to tell an empty line.
    if (line.replace(/\x1b\[[0-9;]*m/g, "").trim() !== "") log(line);
  });
}

export const say = prefixedLogger("sluice");
