import type { Metadata } from "next";

import { Badge } from "@/components/ui/badge";
import { PageHeader } from "@/components/ui/page-header";
import { Table, Td, Th } from "@/components/ui/table";
import { pageActor } from "@/lib/auth/current-user";
import { getDb } from "@/lib/db";
import { listUsers } from "@/lib/domain/users/list-users";
import { formatDateTime } from "@/lib/format";

import { InviteUserForm, UserRow } from "./user-forms";

export const metadata: Metadata = { title: "Users · Sluice" };

export default async function UsersPage() {
  const actor = await pageActor("admin", "/settings/users");
  const users = await listUsers({ db: getDb(), actor });
  return (
    <>
      <PageHeader
        title="Users"
        description="Invite people and choose their role. An invitation is a one-time link you pass on; the invitee sets their own password."
      />
      <section aria-labelledby="invite" className="mb-8 rounded-lg border border-slate-200 p-5">
        <h2 id="invite" className="mb-3 text-base font-semibold">
          Invite a user
        </h2>
        <InviteUserForm />
      </section>
      <Table caption="Users">
        <thead>
          <tr>
            <Th>User</Th>
            <Th>Status</Th>
            <Th>Last sign-in</Th>
            <Th>Role</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {users.map((u) => (
            <tr key={u.id}>
              <Td>
                <div className="font-medium">{u.email}</div>
                {u.displayName ? <div className="text-xs text-slate-500">{u.displayName}</div> : null}
              </Td>
              <Td>
                {u.disabledAt ? (
                  <Badge tone="red">disabled</Badge>
                ) : u.invitationPending ? (
                  <Badge tone="amber">invited</Badge>
                ) : (
                  <Badge tone="teal">active</Badge>
                )}
              </Td>
              <Td>{u.lastLoginAt ? formatDateTime(u.lastLoginAt) : "never"}</Td>
              <Td>
                <UserRow user={{ id: u.id, email: u.email, role: u.role, disabled: Boolean(u.disabledAt) }} self={u.id === actor.userId} />
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </>
  );
}
