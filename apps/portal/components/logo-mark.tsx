// Inline SVG so the header needs no asset request: a gate with flow lines.
export function LogoMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" fill="none" aria-hidden="true" className={className}>
      <rect x="3" y="3" width="18" height="18" rx="4" className="fill-teal-700" />
      <path d="M8 7v10M16 7v10" stroke="white" strokeWidth="2" strokeLinecap="round" />
      <path d="M10.5 10h3M10.5 14h3" stroke="white" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}
