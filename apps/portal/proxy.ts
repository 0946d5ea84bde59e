import { NextResponse, type NextRequest } from "next/server";

// Pages learn their own path and query from this header, so a page (or a layout,
// which does not receive the path) that sends a signed-out visitor to /login can
// bring them back to exactly where they were. Authorization is not done here: it
// happens in every page, action and route (see lib/auth).
export const PATH_HEADER = "x-sluice-path";

export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

export const config = { matcher: ["/((?!api/|_next/|\\.well-known/|favicon.ico).*)"] };
