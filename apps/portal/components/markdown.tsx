import { renderMarkdown } from "@/lib/markdown";

/**
 * An API's or endpoint's description, rendered as safe Markdown (lib/markdown.ts).
 * `inline` is the one-line preview for lists and cards.
 */
export function MarkdownText({ source, inline = false, className }: { source: string; inline?: boolean; className?: string }) {
  const Tag = inline ? "span" : "div";
  return (
    <Tag className={className} data-testid={inline ? undefined : "markdown"}>
      {renderMarkdown(source, { inline })}
    </Tag>
  );
}
