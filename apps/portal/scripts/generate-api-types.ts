// Regenerates lib/api/generated/v1.ts (TypeScript types of the management API)
// from the OpenAPI document the route definitions produce, with openapi-typescript.
// Run after changing a route: pnpm --filter @sluice/portal generate:api-types
// A unit test fails when the committed file is out of date.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { renderApiTypes } from "../lib/api/render-api-types";

const target = fileURLToPath(new URL("../lib/api/generated/v1.ts", import.meta.url));
writeFileSync(target, await renderApiTypes());
console.log(`wrote ${target}`);
