import { authorize } from "./actor";

/** SYSTEM_ACTOR is the portal itself (first start, key generation, the demo API); audited as "system". */
export const SYSTEM_ACTOR = authorize({ userId: "", email: "system", role: "admin", via: { kind: "system" } }, "admin");
