import type { Actor } from "./actor";

/** The portal itself (first start, key generation); audited as "system". */
export const SYSTEM_ACTOR: Actor = { userId: "", email: "system", role: "admin", via: { kind: "system" } };
