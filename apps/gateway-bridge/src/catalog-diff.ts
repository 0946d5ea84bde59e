// Pure planning of a full republish: what must be produced so that the topic's
// current state (the last record per key) equals the database snapshot.
import { isDeepStrictEqual } from "node:util";
import { CATALOG_KINDS, type CatalogRecord } from "@sluice/db";

/** One record as read back from the topic; value is the raw UTF-8 text, null for a tombstone. */
export interface TopicRecord {
  key: string;
  value: string | null;
}

/** The kinds this bridge builds from the database: @sluice/db's, those of packages/protocol/CATALOG.md. */
export const KNOWN_KINDS: readonly string[] = CATALOG_KINDS;

export const kindOf = (key: string): string => key.slice(0, Math.max(0, key.indexOf("/")));
export const isKnownKind = (key: string): boolean => KNOWN_KINDS.includes(kindOf(key));

/** The topic's current state: the last value per key; tombstoned keys are absent. */
export function currentState(records: Iterable<TopicRecord>): Map<string, string> {
  const state = new Map<string, string>();
  for (const r of records) applyRecord(state, r);
  return state;
}

/** Applies one record to a topic state: its value for the key, or the key gone for a tombstone. */
export function applyRecord(state: Map<string, string>, r: TopicRecord): void {
  if (r.value === null) state.delete(r.key);
  else state.set(r.key, r.value);
}

export interface RepublishPlan {
  /** Records to produce, in order. */
  records: CatalogRecord[];
  /** Snapshot records skipped because the topic already holds exactly that value. */
  unchanged: number;
  /** Keys of kinds this bridge does not know: left alone (a newer writer may own them). */
  foreignKeys: string[];
}

function parses(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// Safety first within the republish: revocations and removals of keys/apps
// (which revoke tokens) go before anything that grants access, so a gateway
// that reads the republish midway never accepts more than either end state.
const ORDER = (r: CatalogRecord): number => {
  const kind = kindOf(r.key);
  if (kind === "revoked") return r.value === null ? 6 : 0;
  if (r.value === null) return kind === "endpoint" ? 5 : 1;
  return kind === "key" ? 2 : kind === "app" ? 3 : 4;
};

/**
 * Plans the records that turn `topic` (current state) into `snapshot`:
 * every snapshot record whose value differs from the topic's (so running it
 * twice produces nothing the second time), and a tombstone for every key of a
 * known kind that the topic holds and the snapshot lacks (deleted while no
 * bridge published, expired revocations, retired keys whose tokens expired).
 */
export function planRepublish(snapshot: readonly CatalogRecord[], topic: ReadonlyMap<string, string>): RepublishPlan {
  const records: CatalogRecord[] = [];
  const wanted = new Set<string>();
  let unchanged = 0;
  for (const record of snapshot) {
    wanted.add(record.key);
    const current = topic.get(record.key);
    if (current !== undefined && record.value !== null && isDeepStrictEqual(parses(current), record.value)) {
      unchanged++;
    } else {
      records.push(record);
    }
  }
  const foreignKeys: string[] = [];
  for (const key of topic.keys()) {
    if (wanted.has(key)) continue;
    if (isKnownKind(key)) records.push({ key, value: null });
    else foreignKeys.push(key);
  }
  // A stable sort keeps the snapshot's own order within each group.
  records.sort((a, b) => ORDER(a) - ORDER(b));
  return { records, unchanged, foreignKeys };
}
