import type { AnyRouter } from "@trpc/server";
import type { Meta } from "../trpc/init";

/** Where the REST forms are mounted: a procedure's `openapi.path` is relative to it. */
export const REST_PREFIX = "/api";

/** A request body's limit when a procedure's meta sets none (the contract's 2 MiB). */
export const DEFAULT_BODY_LIMIT = 2 * 1024 * 1024;

export interface RestProcedure {
  path: string;
  meta: Meta & { openapi: NonNullable<Meta["openapi"]> };
}

/** Every procedure that has a REST form, with its meta. */
export function proceduresWithMeta(router: AnyRouter): RestProcedure[] {
  return Object.entries(procedureMetas(router))
    .filter(([, meta]) => meta?.openapi)
    .map(([path, meta]) => ({ path, meta: meta as RestProcedure["meta"] }));
}

/** The body limit of every procedure by its tRPC path, read from its meta: one number for /api and /trpc. */
export function bodyLimits(router: AnyRouter): Map<string, number> {
  return new Map(Object.entries(procedureMetas(router)).map(([path, meta]) => [path, bodyLimitOf(meta)]));
}

export function bodyLimitOf(meta: Meta | undefined): number {
  return meta?.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
}

function procedureMetas(router: AnyRouter): Record<string, Meta | undefined> {
  const procedures = router._def.procedures as Record<string, { _def: { meta?: Meta } }>;
  return Object.fromEntries(Object.entries(procedures).map(([path, procedure]) => [path, procedure._def.meta]));
}
