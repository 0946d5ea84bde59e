// What the portal and the CI test need to know about each generated client:
// its label, how to build it and how to run it under the uniform run contract
// (SLUICE_TOKEN, optional SLUICE_GATEWAY_URL; `subscribe <path>` prints JSON
// lines, `publish <path> <json>` prints the ack). Commands run in the
// generated client's root directory.

export type LanguageId = "typescript" | "javascript" | "python" | "go" | "java" | "curl";

export interface LanguageInfo {
  id: LanguageId;
  /** "TypeScript", "JavaScript (browser)", … */
  label: string;
  /** `cli`: a program run with the commands below; `browser`: one HTML page (build/subscribe/publish are empty). */
  kind: "cli" | "browser";
  /** Syntax-highlighting hint for snippets (Prism/Shiki names). */
  highlight: string;
  /** Commands run in the generated client's root dir, in order, to build it (may be empty). */
  build: string[][];
  /** Command to subscribe to one concrete endpoint path and print messages as JSON lines. */
  subscribe(path: string): string[];
  /** Command to publish one JSON message to a concrete path and print the ack as one JSON line. */
  publish(path: string, json: string): string[];
}

export const languages: readonly LanguageInfo[] = [
  {
    id: "typescript",
    label: "TypeScript",
    kind: "cli",
    highlight: "typescript",
    // The client depends on @sluice/sdk through `file:vendor/sluice-sdk` (the SDK
    // ships inside the generated client), so `npm install` needs only the public
    // registry (ws, typescript, @types/node).
    build: [
      ["npm", "install", "--no-audit", "--no-fund"],
      ["npm", "run", "build"],
    ],
    subscribe: (path) => ["node", "dist/cli.js", "subscribe", path],
    publish: (path, json) => ["node", "dist/cli.js", "publish", path, json],
  },
  {
    id: "javascript",
    label: "JavaScript (browser)",
    kind: "browser",
    highlight: "html",
    build: [],
    subscribe: () => [],
    publish: () => [],
  },
  {
    id: "python",
    label: "Python",
    kind: "cli",
    highlight: "python",
    build: [],
    subscribe: (path) => ["python3", "client.py", "subscribe", path],
    publish: (path, json) => ["python3", "client.py", "publish", path, json],
  },
  {
    id: "go",
    label: "Go",
    kind: "cli",
    highlight: "go",
    build: [],
    subscribe: (path) => ["./client", "subscribe", path],
    publish: (path, json) => ["./client", "publish", path, json],
  },
  {
    id: "java",
    label: "Java",
    kind: "cli",
    highlight: "java",
    build: [],
    subscribe: (path) => ["java", "-cp", "out", "Client", "subscribe", path],
    publish: (path, json) => ["java", "-cp", "out", "Client", "publish", path, json],
  },
  {
    id: "curl",
    label: "curl",
    kind: "cli",
    highlight: "bash",
    build: [],
    subscribe: (path) => ["sh", "client.sh", "subscribe", path],
    publish: (path, json) => ["sh", "client.sh", "publish", path, json],
  },
];

export function languageInfo(id: LanguageId): LanguageInfo {
  const info = languages.find((l) => l.id === id);
  if (!info) throw new Error(`Unknown language "${id}" (known: ${languages.map((l) => l.id).join(", ")})`);
  return info;
}
