"use client";

import { createContext, useContext } from "react";

import { CSRF_FIELD } from "@/lib/actions/csrf-field";

const CsrfContext = createContext("");

/** Set once in the root layout from the session, read by every form. */
export function CsrfProvider({ token, children }: { token: string; children: React.ReactNode }) {
  return <CsrfContext.Provider value={token}>{children}</CsrfContext.Provider>;
}

export function CsrfField() {
  return <input type="hidden" name={CSRF_FIELD} value={useContext(CsrfContext)} />;
}

export function useCsrfToken(): string {
  return useContext(CsrfContext);
}
