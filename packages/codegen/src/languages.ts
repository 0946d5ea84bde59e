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
    // Python 3.11+ (websockets 17.4 needs it); a virtual environment keeps the
    // pinned websockets out of the system's packages.
    build: [
      ["python3", "-m", "venv", ".venv"],
      [".venv/bin/pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt"],
    ],
    subscribe: (path) => [".venv/bin/python", "main.py", "subscribe", path],
    publish: (path, json) => [".venv/bin/python", "main.py", "publish", path, json],
  },
  {
    id: "go",
    label: "Go",
    kind: "cli",
    highlight: "go",
    // go.mod + go.sum are generated (gorilla/websocket v1.5.3): the build needs
    // only the Go module proxy (or a warm module cache).
    build: [["go", "build", "-o", "sluice-client", "."]],
    subscribe: (path) => ["./sluice-client", "subscribe", path],
    publish: (path, json) => ["./sluice-client", "publish", path, json],
  },
  {
    id: "java",
    label: "Java",
    kind: "cli",
    highlight: "java",
    // JDK 17, no dependencies: javac finds the other classes through -sourcepath.
    build: [["javac", "-encoding", "UTF-8", "-d", "build", "-sourcepath", "src", "src/sluice/Main.java"]],
    subscribe: (path) => ["java", "-cp", "build", "sluice.Main", "subscribe", path],
    publish: (path, json) => ["java", "-cp", "build", "sluice.Main", "publish", path, json],
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
