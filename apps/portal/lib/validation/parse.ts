// Turns zod's issues into our AppError, one FieldError per bad field, so the API
// (problem+json) and the forms (messages beside inputs) name the same fields.
import type { z } from "zod";

import { AppError, type FieldError } from "../errors";

export function fieldErrorsFrom(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join(".") : "(body)",
    message: issue.message,
  }));
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fieldErrors = fieldErrorsFrom(result.error);
  const summary = fieldErrors.map((e) => `${e.field}: ${e.message}`).join("; ");
  throw new AppError("validation_failed", 422, `The input is not valid. ${summary}`, fieldErrors);
}
