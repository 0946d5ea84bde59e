// Labelled inputs with their hint and error wired to aria-describedby, so
// screen readers read the message with the field.
const control =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-400 focus:border-teal-600 aria-[invalid=true]:border-red-600";

interface FieldProps {
  label: string;
  name: string;
  error?: string;
  hint?: React.ReactNode;
  required?: boolean;
}

function describedBy(name: string, error?: string, hint?: React.ReactNode) {
  return [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ") || undefined;
}

function FieldShell({ label, name, error, hint, required, children }: FieldProps & { children: React.ReactNode }) {
  return (
    <div className="space-y-1.5">
      {/* The required mark sits outside the label so the field's name stays exactly its label. */}
      <div className="flex items-baseline gap-1">
        <label htmlFor={name} className="block text-sm font-medium text-slate-800">
          {label}
        </label>
        {required ? (
          <span aria-hidden="true" className="text-sm text-red-700">
            *
          </span>
        ) : null}
      </div>
      {children}
      {hint ? (
        <p id={`${name}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${name}-error`} className="text-sm text-red-700" data-testid={`error-${name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function TextField({
  label,
  name,
  error,
  hint,
  required,
  className = "",
  ...props
}: FieldProps & Omit<React.ComponentProps<"input">, "name">) {
  return (
    <FieldShell label={label} name={name} error={error} hint={hint} required={required}>
      <input
        id={name}
        name={name}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(name, error, hint)}
        className={`${control} ${className}`}
        {...props}
      />
    </FieldShell>
  );
}

export function TextAreaField({
  label,
  name,
  error,
  hint,
  required,
  className = "",
  ...props
}: FieldProps & Omit<React.ComponentProps<"textarea">, "name">) {
  return (
    <FieldShell label={label} name={name} error={error} hint={hint} required={required}>
      <textarea
        id={name}
        name={name}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(name, error, hint)}
        className={`${control} font-mono ${className}`}
        {...props}
      />
    </FieldShell>
  );
}

export function SelectField({
  label,
  name,
  error,
  hint,
  required,
  className = "",
  children,
  ...props
}: FieldProps & Omit<React.ComponentProps<"select">, "name">) {
  return (
    <FieldShell label={label} name={name} error={error} hint={hint} required={required}>
      <select
        id={name}
        name={name}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(name, error, hint)}
        className={`${control} ${className}`}
        {...props}
      >
        {children}
      </select>
    </FieldShell>
  );
}

/** A group of checkboxes sharing one name (e.g. operations). */
export function CheckboxGroup({
  legend,
  name,
  options,
  defaultChecked = [],
  error,
}: {
  legend: string;
  name: string;
  options: { value: string; label: string; hint?: string }[];
  defaultChecked?: string[];
  error?: string;
}) {
  return (
    <fieldset className="space-y-2" aria-describedby={error ? `${name}-error` : undefined}>
      <legend className="text-sm font-medium text-slate-800">{legend}</legend>
      <div className="flex flex-wrap gap-4">
        {options.map((o) => (
          <label key={o.value} className="flex items-start gap-2 text-sm text-slate-800">
            <input
              type="checkbox"
              name={name}
              value={o.value}
              defaultChecked={defaultChecked.includes(o.value)}
              className="mt-0.5 size-4 rounded border-slate-300 accent-teal-700"
            />
            <span>
              {o.label}
              {o.hint ? <span className="block text-xs text-slate-500">{o.hint}</span> : null}
            </span>
          </label>
        ))}
      </div>
      {error ? (
        <p id={`${name}-error`} className="text-sm text-red-700" data-testid={`error-${name}`}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
