// Catalog forms hand back what was typed, so a refused form keeps its values
// (React resets a form after its action; inputs then fall back to these).
import type { FormState } from "@/lib/actions/form-state";

export type FormValues = Record<string, string | string[]>;
export interface CatalogFormState extends FormState {
  values?: FormValues;
}
export const initialCatalogFormState: CatalogFormState = { ok: false };

export const valueOf = (state: CatalogFormState, name: string, fallback = ""): string => {
  const v = state.values?.[name];
  return typeof v === "string" ? v : fallback;
};

export const valuesOf = (state: CatalogFormState, name: string, fallback: string[]): string[] => {
  if (!state.values) return fallback;
  const v = state.values[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};
