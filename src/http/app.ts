import { Elysia } from "elysia";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { AnyRouter } from "@trpc/server";
import type { ServiceContext } from "../modules/context";
import type { TrpcContext } from "../trpc/context";
import { log } from "../log";
import { docsPlugin } from "./docs";
import { edgeError } from "./error-response";
import { createRestHandler } from "./rest-adapter";
import { createTrpcHandler } from "./trpc-endpoint";
import { viewerRoutes } from "../viewer/route";

export interface HttpAppOptions {
  router: AnyRouter;
  services: ServiceContext;
  document: OpenAPIObject;
  /** Resolves when the notes database and the queue answer; rejects otherwise. */
  checkHealth: () => Promise<void>;
  /** The largest body any route takes (import tasks); other routes have their own lower limits. */
  maxBodyBytes: number;
}

/** The HTTP edge: REST at /api, tRPC at /trpc, docs, the /graph page, health; every error in the contract's body. */
export function createHttpApp(options: HttpAppOptions) {
  let server: { requestIP(request: Request): { address: string } | null } | null = null;
  const contextFor = (request: Request, transport: TrpcContext["transport"]): TrpcContext => ({
    ...options.services,
    clientAddress: server?.requestIP(request)?.address ?? "unknown",
    authorization: request.headers.get("authorization"),
    transport,
  });
  const rest = createRestHandler(options.router, contextFor);
  const trpc = createTrpcHandler(options.router, (request) => contextFor(request, "rpc"), options.maxBodyBytes);

  const app = new Elysia({ serve: { maxRequestBodySize: options.maxBodyBytes + 1024 * 1024 } })
    .onStart(({ server: started }) => {
      server = started as unknown as typeof server;
    })
    .onError(({ code, error }) => {
      if (code === "NOT_FOUND") return edgeError("NOT_FOUND", "No such endpoint");
      if (code === "PARSE") return edgeError("BAD_REQUEST", "Malformed request body");
      log.error("unhandled error at the HTTP edge", error);
      return edgeError("INTERNAL_SERVER_ERROR", "Internal server error");
    })
    .get("/healthz", async () => {
      try {
        await options.checkHealth();
        return Response.json({ status: "ok" });
      } catch (error) {
        log.warn("health check failed", error);
        return Response.json({ status: "unavailable" }, { status: 503 });
      }
    })
    .use(docsPlugin(options.document))
    .use(viewerRoutes())
    .all("/api/*", ({ request }) => rest(request), { parse: "none" })
    .all("/trpc/*", ({ request }) => trpc(request), { parse: "none" });
  return app;
}
