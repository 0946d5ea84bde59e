// Descriptions of APIs and endpoints are written by editors in Markdown and
// read by everyone, so they are rendered, never injected: react-markdown turns
// the text into React elements (no dangerouslySetInnerHTML), `skipHtml` drops
// any HTML in the source instead of showing it, its default URL filter keeps
// only http(s), mailto and relative links, and images are left out (a
// description must not make every reader's browser fetch a third-party URL).
// It renders the same on the server and in a test, with no DOM needed, which is
// why it was chosen over marked + DOMPurify (a second library and a DOM shim on
// the server for what react-markdown does by construction).
import { createElement, type ComponentProps, type ReactElement } from "react";
import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

/** What a description may contain when it is shown on one line (lists, cards): inline formatting only. */
const INLINE_ELEMENTS = ["p", "strong", "em", "del", "code", "a", "br"];

const headingClass = "mt-3 mb-1 font-semibold text-slate-900";

const components: Components = {
  // Links leave the portal: no opener, no referrer.
  a: ({ node: _node, ...props }) =>
    createElement("a", { ...props, rel: "noopener noreferrer", className: "font-medium text-teal-800 underline hover:text-teal-950" }),
  code: ({ node: _node, ...props }) =>
    createElement("code", { ...props, className: "rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.9em]" }),
  pre: ({ node: _node, ...props }) =>
    createElement("pre", { ...props, className: "my-2 overflow-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-xs" }),
  // A description sits under the page's own heading: its headings stay text-sized, so the page keeps one outline.
  h1: ({ node: _node, ...props }) => createElement("p", { ...props, className: headingClass }),
  h2: ({ node: _node, ...props }) => createElement("p", { ...props, className: headingClass }),
  h3: ({ node: _node, ...props }) => createElement("p", { ...props, className: headingClass }),
  h4: ({ node: _node, ...props }) => createElement("p", { ...props, className: headingClass }),
  h5: ({ node: _node, ...props }) => createElement("p", { ...props, className: headingClass }),
  h6: ({ node: _node, ...props }) => createElement("p", { ...props, className: headingClass }),
  ul: ({ node: _node, ...props }) => createElement("ul", { ...props, className: "my-1 list-disc pl-5" }),
  ol: ({ node: _node, ...props }) => createElement("ol", { ...props, className: "my-1 list-decimal pl-5" }),
  p: ({ node: _node, ...props }) => createElement("p", { ...props, className: "my-1" }),
};

/** The react-markdown options for a description: `inline` keeps only inline formatting (for a one-line preview). */
export function markdownOptions(inline = false): Omit<ComponentProps<typeof Markdown>, "children"> {
  return {
    remarkPlugins: [remarkGfm],
    skipHtml: true,
    components: inline ? { ...components, p: ({ node: _node, ...props }) => createElement("span", props) } : components,
    ...(inline ? { allowedElements: INLINE_ELEMENTS, unwrapDisallowed: true } : { disallowedElements: ["img"] }),
  };
}

/** A description rendered as React elements (see the file comment for what is kept). */
export function renderMarkdown(source: string, options: { inline?: boolean } = {}): ReactElement {
  return createElement(Markdown, markdownOptions(options.inline), source);
}
