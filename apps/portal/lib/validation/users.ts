import { z } from "zod";

import { ROLES } from "../auth/actor";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PASSWORD_RULES } from "./password-rules";

export const emailSchema = z
  .string()
  .trim()
  .min(3, "enter an e-mail address")
  .max(254, "must be at most 254 characters")
  .regex(/^[^@\s]+@[^@\s]+$/, "enter an e-mail address such as ada@example.com");

/** The shared password rules (password-rules.ts), as lengths so the OpenAPI document states them too. */
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, PASSWORD_RULES[0]!.message)
  .max(PASSWORD_MAX_LENGTH, PASSWORD_RULES[1]!.message);

export const displayNameSchema = z.string().trim().max(100, "must be at most 100 characters");

export const roleSchema = z.enum(ROLES, { error: "must be viewer, editor or admin" });

export const signInInput = z.object({
  email: emailSchema,
  // Only presence is checked at sign-in: the policy applies when passwords are set.
  password: z.string().min(1, "enter your password").max(PASSWORD_MAX_LENGTH),
});

export const firstAdminInput = z.object({
  email: emailSchema,
  displayName: displayNameSchema.default(""),
  password: passwordSchema,
});

export const setPasswordInput = z.object({ password: passwordSchema });

export const inviteUserInput = z.object({
  email: emailSchema,
  displayName: displayNameSchema.default(""),
  role: roleSchema,
});

/** InviteUserInput is inviteUserInput after parsing: what the domain function takes, already validated. */
export type InviteUserInput = z.output<typeof inviteUserInput>;

export const updateUserInput = z.object({
  role: roleSchema.optional(),
  disabled: z.boolean().optional(),
});

/** UpdateUserInput is updateUserInput after parsing: what the domain function takes, already validated. */
export type UpdateUserInput = z.output<typeof updateUserInput>;
