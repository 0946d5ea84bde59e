// Output building blocks shared by the route definitions.
import { z } from "zod";

/** Timestamps travel as ISO 8601 strings (JSON.stringify of a Date). */
export const timestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = timestamp.nullable();
export const uuidParam = (name: string) => z.object({ [name]: z.uuid(`must be a UUID`) });
