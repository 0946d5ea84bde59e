import Link from "next/link";

const base =
  "inline-flex items-center justify-center gap-2 rounded-md px-3.5 py-2 text-sm font-medium transition-colors disabled:cursor-not-allowed disabled:opacity-60";
export const buttonStyles = {
  primary: `${base} bg-teal-700 text-white hover:bg-teal-800`,
  secondary: `${base} border border-slate-300 bg-white text-slate-800 hover:bg-slate-50`,
  danger: `${base} bg-red-700 text-white hover:bg-red-800`,
  ghost: `${base} text-slate-700 hover:bg-slate-100`,
};
export type ButtonVariant = keyof typeof buttonStyles;

export function Button({ variant = "primary", className = "", ...props }: React.ComponentProps<"button"> & { variant?: ButtonVariant }) {
  return <button type="button" className={`${buttonStyles[variant]} ${className}`} {...props} />;
}

export function ButtonLink({
  variant = "primary",
  className = "",
  ...props
}: React.ComponentProps<typeof Link> & { variant?: ButtonVariant }) {
  return <Link className={`${buttonStyles[variant]} ${className}`} {...props} />;
}
