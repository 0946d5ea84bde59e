"use client";

import { useFormStatus } from "react-dom";

import { buttonStyles, type ButtonVariant } from "./button";

/** A submit button that disables itself and says so while its form is being sent. */
export function SubmitButton({
  children,
  pendingText,
  variant = "primary",
  className = "",
  ...props
}: React.ComponentProps<"button"> & { pendingText?: string; variant?: ButtonVariant }) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} aria-disabled={pending} className={`${buttonStyles[variant]} ${className}`} {...props}>
      {pending ? (pendingText ?? "Saving…") : children}
    </button>
  );
}
