// Output building blocks shared by the route definitions.
import { z } from "zod";

/** Timestamps travel as ISO 8601 strings (JSON.stringify of a Date). */
export const timestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = timestamp.nullable();
/** A path parameter that names a row by its id; routes spell out `z.object({ apiId: uuid })` so the handler sees the name typed. */
export const uuid = z.uuid("must be a UUID");
