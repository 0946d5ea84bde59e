import assert from "node:assert/strict";
import { test } from "node:test";

import { renderToStaticMarkup } from "react-dom/server";

import { renderMarkdown } from "./markdown";

const html = (source: string, inline = false) => renderToStaticMarkup(renderMarkdown(source, { inline }));

test("bold, code spans and lists become elements, with no backticks or asterisks left", () => {
  const out = html("Prices in **EUR** as `{ price }`.\n\n- one\n- two");
  assert.match(out, /<strong>EUR<\/strong>/);
  assert.match(out, /<code[^>]*>\{ price \}<\/code>/);
  assert.match(out, /<li>one<\/li>/);
  assert.doesNotMatch(out, /[`*]/);
});

test("HTML in the source is dropped: no script, no event handler attribute, no image", () => {
  const out = html(
    'Hi <script>globalThis.pwned = 1</script>\n\n<img src="x" onerror="alert(1)">\n\n<b onclick="x()">b</b> ![t](https://tracker.example/p.gif)',
  );
  assert.doesNotMatch(out, /<script|<img|onerror|onclick|<b[ >]|tracker/i);
  // Inline tags go; the words between them stay as harmless text.
  assert.match(out, /Hi globalThis.pwned = 1/);
});

test("links get noopener noreferrer, and javascript: URLs are emptied", () => {
  const out = html("[docs](https://example.com/x) and [bad](javascript:alert(1)) and https://example.org");
  assert.match(out, /<a href="https:\/\/example.com\/x" rel="noopener noreferrer"/);
  assert.doesNotMatch(out, /javascript:/);
  // GFM autolink literal
  assert.match(out, /<a href="https:\/\/example.org" rel="noopener noreferrer"/);
});

test("inline keeps only inline formatting: no block elements in a one-line preview", () => {
  const out = html("# Title\n\nSome **bold**\n\n```\ncode block\n```\n\n| a |\n|---|\n| 1 |", true);
  assert.doesNotMatch(out, /<(p|h\d|pre|table|ul|div)[ >]/);
  assert.match(out, /<strong>bold<\/strong>/);
});
