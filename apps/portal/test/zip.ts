// Reads zip archives in tests: contents with fflate, Unix modes from the central
// directory (fflate's unzip does not expose external attributes).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

import { unzipSync } from "fflate";

export interface ZipEntry {
  name: string;
  data: Uint8Array;
  /** The Unix mode the archive records (0 when the entry has none). */
  mode: number;
}

export function readZip(bytes: Uint8Array): ZipEntry[] {
  const contents = unzipSync(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.byteLength - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("not a zip archive: no end-of-central-directory record");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const madeByUnix = view.getUint8(at + 5) === 3;
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const attrs = view.getUint32(at + 38, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    entries.push({ name, data: contents[name]!, mode: madeByUnix ? attrs >>> 16 : 0 });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Writes every file entry under `dir`, keeping the executable bit. */
export function extractZip(bytes: Uint8Array, dir: string): ZipEntry[] {
  const entries = readZip(bytes);
  for (const entry of entries) {
    if (entry.name.endsWith("/")) continue;
    const target = path.join(dir, entry.name);
    if (!target.startsWith(path.resolve(dir) + path.sep)) throw new Error(`zip entry escapes the folder: ${entry.name}`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, entry.data);
    if (entry.mode & 0o111) chmodSync(target, 0o755);
  }
  return entries;
}
