import type { FormState } from "@/lib/actions/form-state";

/** Form state that also hands back what was typed, so a refused form keeps its values. */
export type AppFormState = FormState & { values?: Record<string, string | string[]> };
