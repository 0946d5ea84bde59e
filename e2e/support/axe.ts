import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/**
 * The rule sets checked: WCAG 2.0/2.1/2.2 levels A and AA, plus axe's best
 * practices (one main landmark, one h1, content inside landmarks, ...).
 * @axe-core/playwright injects axe-core's own source into the page, so nothing
 * is fetched: it works offline.
 */
export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

/** The issue asks for no serious or critical violation; moderate and minor ones are reported, not failed. */
const FAILING = new Set(["serious", "critical"]);

export interface AxeReport {
  /** Serious and critical violations, one line each with the elements they were found on. */
  failing: string[];
  /** Moderate and minor ones, for the test's annotations. */
  other: string[];
}

export async function checkAccessibility(page: Page): Promise<AxeReport> {
  const { violations } = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  const line = (v: (typeof violations)[number]) =>
    `${v.impact} ${v.id}: ${v.help} — ${v.nodes
      .slice(0, 5)
      .map((n) => n.target.join(" "))
      .join(" | ")}${v.nodes.length > 5 ? ` (+${v.nodes.length - 5} more)` : ""}`;
  return {
    failing: violations.filter((v) => FAILING.has(v.impact ?? "")).map(line),
    other: violations.filter((v) => !FAILING.has(v.impact ?? "")).map(line),
  };
}
