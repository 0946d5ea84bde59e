import type { NextConfig } from "next";

// Sent on every response (pages, route handlers, static assets). A full CSP
// needs per-request nonces for Next's inline scripts, so only the framing
// directive is set here; X-Frame-Options covers older browsers.
const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
];

const nextConfig: NextConfig = {
  // @sluice/db, @sluice/kafka-settings and @sluice/schema-registry ship TypeScript sources (their exports point at src/*.ts).
  transpilePackages: ["@sluice/db", "@sluice/kafka-settings", "@sluice/schema-registry"],
  // kafkajs and pg are Node libraries with optional native paths: load them at run time.
  // @sluice/codegen runs @asyncapi/generator, which reads its templates from disk
  // and requires modules dynamically: bundling it would lose both.
  serverExternalPackages: ["kafkajs", "pg", "@sluice/codegen", "@asyncapi/generator"],
  poweredByHeader: false,
  // forbidden() renders app/forbidden.tsx with a 403 for pages a role may not see.
  experimental: { authInterrupts: true },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
