"use server";

import { cookies } from "next/headers";
import { redirect } from "next/navigation";

import { clearSessionCookie } from "../auth/current-user";
import { deleteSession, SESSION_COOKIE } from "../auth/sessions";
import { getDb } from "../db";

/** signOutAction ends the session behind the cookie (if any) and sends the browser to sign in; the header's button posts here. */
export async function signOutAction(): Promise<void> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (token) await deleteSession({ db: getDb(), token });
  await clearSessionCookie();
  redirect("/login");
}
