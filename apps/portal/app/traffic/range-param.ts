import { USAGE_RANGES, type UsageRange } from "@/lib/domain/usage/usage-range";

/** The `range` search parameter of a traffic page; anything else is the last hour. */
export function rangeParam(value: string | string[] | undefined): UsageRange {
  return USAGE_RANGES.find((r) => r === value) ?? "hour";
}
