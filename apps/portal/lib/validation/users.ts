import { z } from "zod";

import { ROLES } from "../auth/actor";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/password";

export const emailSchema = z
  .string()
  .trim()
  .min(3, "enter an e-mail address")
  .max(254, "must be at most 254 characters")
  .regex(/^[^@\s]+@[^@\s]+$/, "enter an e-mail address such as ada@example.com");

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

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
