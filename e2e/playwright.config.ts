import { defineConfig } from "@playwright/test";

import { ADMIN_STATE } from "./support/accounts";

// Runs against a stack that `./sluice test` has already started (SLUICE_PORTAL_URL).
// The browser is Debian's Chromium: Playwright's own browser download is not
// possible offline, and the system one is what operators have.
const portalUrl = process.env.SLUICE_PORTAL_URL;
if (!portalUrl) throw new Error("SLUICE_PORTAL_URL is not set: run the e2e suite through ./sluice test");

export default defineConfig({
  testDir: "./specs",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  projects: [
    // Creates the first admin through the one-time link the launcher printed,
    // and leaves that admin's signed-in state for the other specs.
    { name: "first-admin", testMatch: /first-admin\.setup\.ts/ },
    { name: "portal", testMatch: /\.spec\.ts$/, dependencies: ["first-admin"], use: { storageState: ADMIN_STATE } },
  ],
  use: {
    baseURL: portalUrl,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.SLUICE_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
});
