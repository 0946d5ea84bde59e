// The caller, their personal API keys, and (admins) the portal's users.
import { z } from "zod";

import { ROLES } from "../../auth/actor";
import { listApiKeys } from "../../domain/api-keys/list-api-keys";
import { revokeApiKey } from "../../domain/api-keys/revoke-api-key";
import { inviteUser } from "../../domain/users/invite-user";
import { listUsers } from "../../domain/users/list-users";
import { updateUser } from "../../domain/users/update-user";
import { inviteUserInput, updateUserInput } from "../../validation/users";
import { defineRoute } from "../route";
import { nullableTimestamp, timestamp, uuid } from "../schemas";

const role = z.enum(ROLES);

const me = z.object({ id: z.uuid(), email: z.string(), role, authenticatedWith: z.enum(["session", "api-key"]) }).meta({ id: "Me" });

const apiKey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().describe("The first characters of the key, to tell keys apart"),
    createdAt: timestamp,
    lastUsedAt: nullableTimestamp,
    expiresAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
  })
  .meta({ id: "ApiKey" });

const user = z
  .object({
    id: z.uuid(),
    email: z.string(),
    displayName: z.string(),
    role,
    createdAt: timestamp,
    lastLoginAt: nullableTimestamp,
    disabledAt: nullableTimestamp,
    invitationPending: z.boolean(),
  })
  .meta({ id: "User" });

export const accountRoutes = [
  defineRoute({
    method: "GET",
    path: "/me",
    operationId: "getMe",
    summary: "Who the credentials belong to",
    tag: "Account",
    auth: "viewer",
    response: me,
    handler: async ({ actor }) => ({
      id: actor.userId,
      email: actor.email,
      role: actor.role,
      authenticatedWith: actor.via.kind === "api-key" ? "api-key" : "session",
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/me/api-keys",
    operationId: "listMyApiKeys",
    summary: "List your personal API keys",
    description: "Keys are created in the portal (Settings → API keys) while signed in; the key itself is shown once there.",
    tag: "Account",
    auth: "viewer",
    response: z.object({ items: z.array(apiKey) }),
    handler: async ({ db, actor }) => ({ items: await listApiKeys({ db, actor }) }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/me/api-keys/{keyId}",
    operationId: "revokeApiKey",
    summary: "Revoke a personal API key (admins: anyone's)",
    tag: "Account",
    auth: "viewer",
    params: z.object({ keyId: uuid }),
    response: null,
    handler: async ({ db, actor, params }) => {
      await revokeApiKey({ db, actor, keyId: params.keyId });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/users",
    operationId: "listUsers",
    summary: "List the portal's users",
    tag: "Users",
    auth: "admin",
    response: z.object({ items: z.array(user) }),
    handler: async ({ db, actor }) => ({ items: await listUsers({ db, actor }) }),
  }),
  defineRoute({
    method: "POST",
    path: "/users",
    operationId: "inviteUser",
    summary: "Invite a user",
    description: "Creates the account with a role and returns a one-time link (valid 7 days) where the invitee sets a password.",
    tag: "Users",
    auth: "admin",
    body: inviteUserInput,
    status: 201,
    response: z.object({ user, inviteUrl: z.string(), inviteExpiresAt: timestamp }),
    handler: async ({ db, actor, body }) => {
      const { user: row, inviteUrl, inviteExpiresAt } = await inviteUser({ db, actor, input: body });
      return { user: { ...row, invitationPending: true }, inviteUrl, inviteExpiresAt };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/users/{userId}",
    operationId: "updateUser",
    summary: "Change a user's role or disable the account",
    tag: "Users",
    auth: "admin",
    params: z.object({ userId: uuid }),
    body: updateUserInput,
    response: user,
    handler: async ({ db, actor, params, body }) => {
      const row = await updateUser({ db, actor, userId: params.userId, input: body });
      return { ...row, invitationPending: row.passwordHash === null, passwordHash: undefined };
    },
  }),
];
