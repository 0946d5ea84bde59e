import { dispatch } from "@/lib/api/router";

// Every management-API operation is served by one router (lib/api/router.ts),
// defined in lib/api/routes; see /api/v1/openapi.json.
export const dynamic = "force-dynamic";

export const GET = (request: Request) => dispatch(request, "GET");
export const POST = (request: Request) => dispatch(request, "POST");
export const PUT = (request: Request) => dispatch(request, "PUT");
export const PATCH = (request: Request) => dispatch(request, "PATCH");
export const DELETE = (request: Request) => dispatch(request, "DELETE");
