import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Why the focused element shows no focus indicator, or "" when it shows one: an
 * outline (globals.css gives every :focus-visible element one), or a ring on a
 * card whose covering link has focus (`focus-within:ring` on an ancestor).
 */
function missingFocusIndicator(): string {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return "nothing has focus";
  const style = getComputedStyle(el);
  if (style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0) return "";
  for (let up = el.parentElement; up; up = up.parentElement) {
    if (up.matches(":focus-within") && /(^|\s)focus-within:ring/.test(up.className)) return "";
  }
  return `no visible focus indicator on ${el.outerHTML.slice(0, 160)}`;
}

export async function expectVisibleFocus(page: Page): Promise<void> {
  expect(await page.evaluate(missingFocusIndicator)).toBe("");
}

/**
 * Presses Tab (or Shift+Tab) until `target` has focus, checking at every stop
 * that the focused element shows where the focus is. Fails if `target` is not
 * reached within `max` presses: a keyboard user could not get there either.
 */
export async function tabTo(page: Page, target: Locator, { backwards = false, max = 80 } = {}): Promise<void> {
  await target.waitFor();
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(backwards ? "Shift+Tab" : "Tab");
    const missing = await page.evaluate(missingFocusIndicator);
    // Past the last (or first) stop the focus leaves the page for the browser's own controls.
    if (missing !== "nothing has focus") expect(missing).toBe("");
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`not reached with ${max} presses of ${backwards ? "Shift+Tab" : "Tab"}: ${target}`);
}
