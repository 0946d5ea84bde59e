import Link from "next/link";

import { Badge } from "@/components/ui/badge";
import { Table, Td, Th } from "@/components/ui/table";
import type { AccessRequestView } from "@/lib/domain/access-requests/access-request-view";
import { formatDateTime } from "@/lib/format";

const stateTone = { pending: "amber", approved: "teal", rejected: "red", withdrawn: "slate" } as const;

/** Access requests as both sides see them; `actions` renders what the viewer may do with a row. */
export function AccessRequestTable({
  caption,
  requests,
  show,
  actions,
}: {
  caption: string;
  requests: AccessRequestView[];
  /** Which side's name to show: the inbox names the app, an app's page the API. */
  show: "app" | "api";
  actions?: (request: AccessRequestView) => React.ReactNode;
}) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th>{show === "app" ? "App and API" : "API"}</Th>
          <Th>Access</Th>
          <Th>Justification</Th>
          <Th>Requested</Th>
          <Th>State</Th>
          {actions ? (
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          ) : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {requests.map((r) => (
          <tr key={r.id} data-testid={`access-request-${r.id}`} className="align-top">
            <Td>
              {show === "app" ? <span className="block font-medium">{r.appName}</span> : null}
              <Link href={`/apis/${r.apiId}`} className="text-teal-800 hover:underline">
                {r.apiName} v{r.apiVersion}
              </Link>
            </Td>
            <Td>
              {r.wholeApi ? (
                <span>the whole API</span>
              ) : r.endpoints.length === 0 ? (
                <span className="text-slate-500">endpoints since deleted</span>
              ) : (
                <ul className="space-y-0.5">
                  {r.endpoints.map((e) => (
                    <li key={e.id} className="font-mono text-xs break-all">
                      {e.path}
                    </li>
                  ))}
                </ul>
              )}
              <span className="block text-xs text-slate-500">{r.operations.join(", ")}</span>
              {r.planName ? <span className="block text-xs text-slate-700">plan {r.planName}</span> : null}
            </Td>
            <Td className="max-w-xs text-sm break-words text-slate-700">{r.justification}</Td>
            <Td className="text-sm">
              {formatDateTime(r.requestedAt)}
              <span className="block text-xs text-slate-500">{r.requestedByEmail ?? "—"}</span>
            </Td>
            <Td className="text-sm">
              <Badge tone={stateTone[r.state]}>{r.state}</Badge>
              {r.decidedAt ? (
                <span className="block text-xs text-slate-500">
                  {formatDateTime(r.decidedAt)}{" "}
                  {r.autoApproved ? "automatically (the plan auto-approves)" : `by ${r.decidedByEmail ?? "a deleted user"}`}
                </span>
              ) : null}
              {r.reason ? (
                <span className="mt-1 block max-w-xs text-xs break-words text-red-800" data-testid="access-request-reason">
                  Reason: {r.reason}
                </span>
              ) : null}
            </Td>
            {actions ? <Td>{actions(r)}</Td> : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
