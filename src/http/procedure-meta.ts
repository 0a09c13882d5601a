import type { AnyRouter } from "@trpc/server";
import type { Meta } from "../trpc/init";

export interface RestProcedure {
  path: string;
  meta: Meta & { openapi: NonNullable<Meta["openapi"]> };
}

/** Every procedure that has a REST form, with its meta. */
export function proceduresWithMeta(router: AnyRouter): RestProcedure[] {
  return Object.entries(router._def.procedures as Record<string, { _def: { meta?: Meta } }>)
    .filter(([, procedure]) => procedure._def.meta?.openapi)
    .map(([path, procedure]) => ({ path, meta: procedure._def.meta as RestProcedure["meta"] }));
}
