import { notFound } from "next/navigation";

import { AppError } from "@/lib/errors";

/** Runs a domain read; its 404 (or a malformed id) becomes the page's 404. */
export async function loadOr404<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError && (err.status === 404 || err.status === 422)) notFound();
    throw err;
  }
}
