// Packs a generated client into one zip archive with fflate.
//
// Why fflate: no dependencies, ships its own types, small and fast, maintained,
// and a synchronous zipSync that suits archives of a few dozen small files built
// in memory. It also writes Unix permissions (external attributes), so scripts
// the generator marks executable stay executable after `unzip`. JSZip is
// promise-only and heavier; archiver is stream-based with a deep dependency tree.
import { strToU8, zipSync, type Zippable } from "fflate";

export interface ClientFile {
  path: string;
  contents: string;
  executable?: boolean;
}

/** Zip "version made by" host 3 = Unix, so unzip honours the mode bits below. */
const UNIX = 3;
const FILE_MODE = 0o100644;
const EXECUTABLE_MODE = 0o100755;

/**
 * Every file under one top-level folder (`folder/README.md`, …), so unzipping never
 * scatters files into the current directory. `modified` stamps every entry: the
 * same client of the same API version gives the same bytes.
 */
export function zipClient(files: readonly ClientFile[], options: { folder: string; modified: Date }): Uint8Array {
  const entries: Zippable = {};
  for (const file of files) {
    const path = safeRelativePath(file.path);
    const name = `${options.folder}/${path}`;
    if (name in entries) throw new Error(`the generated client has two files at ${path}`);
    entries[name] = [
      strToU8(file.contents),
      { os: UNIX, attrs: (file.executable ? EXECUTABLE_MODE : FILE_MODE) * 0x10000, mtime: options.modified },
    ];
  }
  return zipSync(entries, { level: 6 });
}

/** A relative path with forward slashes and no `..`, `.` or empty segment (no zip-slip). */
function safeRelativePath(path: string): string {
  const segments = path.replaceAll("\\", "/").split("/");
  if (path.startsWith("/") || segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new Error(`the generated client has an unsafe file path: ${JSON.stringify(path)}`);
  }
  return segments.join("/");
}
