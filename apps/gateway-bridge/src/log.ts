// One line per event on stdout; the launcher prefixes it with [bridge].
export function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} ${message}\n`);
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
