// Dates render in UTC with an explicit zone: server-rendered pages must not
// depend on the server's locale, and operators compare them with logs.
export function formatDateTime(value: Date | string | null | undefined): string {
  if (!value) return "";
  const d = typeof value === "string" ? new Date(value) : value;
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function formatRelativeSeconds(seconds: number): string {
  const units: [number, string][] = [
    [86400, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (seconds >= size) {
      const n = Math.round(seconds / size);
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} seconds`;
}

/** A plan's limits as one line for pages ("1 connection · 5 publishes/s"); "no limits" when every limit is null. */
export function formatPlanLimits(limits: {
  connections: number | null;
  subscriptionsPerConnection: number | null;
  publishPerSecond: number | null;
  deliveredPerSecond: number | null;
  deliveredBytesPerSecond: number | null;
}): string {
  const n = (v: number) => v.toLocaleString("en-US");
  const parts = [
    limits.connections === null ? null : `${n(limits.connections)} connection${limits.connections === 1 ? "" : "s"}`,
    limits.subscriptionsPerConnection === null ? null : `${n(limits.subscriptionsPerConnection)} subscriptions/connection`,
    limits.publishPerSecond === null ? null : `${n(limits.publishPerSecond)} publishes/s`,
    limits.deliveredPerSecond === null ? null : `${n(limits.deliveredPerSecond)} messages delivered/s`,
    limits.deliveredBytesPerSecond === null ? null : `${n(limits.deliveredBytesPerSecond)} bytes delivered/s`,
  ].filter((p) => p !== null);
  return parts.length ? parts.join(" · ") : "no limits";
}

/** A person as pages show them: "Ada Lovelace (ada@example.com)", the e-mail alone without a name, "—" for nobody. */
export function formatPerson(name: string | null | undefined, email: string | null | undefined): string {
  if (!email) return name || "—";
  return name ? `${name} (${email})` : email;
}
