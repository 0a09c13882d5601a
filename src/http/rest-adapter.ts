import { TRPCError, type AnyRouter } from "@trpc/server";
import { getErrorShape } from "@trpc/server/unstable-core-do-not-import";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import type { TrpcContext } from "../trpc/context";
import { errorHeaders } from "../trpc/errors";
import { logUnexpected } from "../trpc/init";
import { edgeError, PayloadTooLargeError, trpcErrorResponse } from "./error-response";
import { bodyLimitOf, proceduresWithMeta, REST_PREFIX, type RestProcedure } from "./procedure-meta";
import { mediaType, readBodyText } from "./request-body";

const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";

interface Route extends RestProcedure {
  method: string;
  pattern: RegExp;
}

type ContextFactory = (request: Request, transport: TrpcContext["transport"]) => TrpcContext;

/**
 * The REST surface at /api: trpc-to-openapi's handler, built once (its fetch adapter rebuilds it
 * per request), behind our own edge. The edge matches the route first (404 vs 405), enforces the
 * route's body limit, turns JSON or the OAuth2 login form into input (the library reads only
 * JSON), streams binary downloads, and gives every error the contract's body.
 */
export function createRestHandler(router: AnyRouter, createContext: ContextFactory) {
  const routes: Route[] = proceduresWithMeta(router).map((procedure) => ({
    ...procedure,
    method: procedure.meta.openapi.method,
    pattern: new RegExp(`^${procedure.meta.openapi.path.replace(/\{(\w+)\}/g, "([^/]+)")}/?$`),
  }));
  const successStatus = new Map(routes.map((route) => [route.path, route.meta.successStatus ?? 200]));
  const contexts = new WeakMap<object, TrpcContext>();

  const handler = createOpenApiNodeHttpHandler({
    router,
    createContext: ({ req }: { req: object }) => contexts.get(req)!,
    responseMeta: ({ ctx, paths, errors }: { ctx?: TrpcContext; paths?: string[]; errors: TRPCError[] }) =>
      errors[0] ? { headers: errorHeaders(errors[0]) } : { status: ctx?.response?.status ?? successStatus.get(paths?.[0] ?? "") ?? 200 },
    onError: ({ error, path }: { error: TRPCError; path?: string }) => logUnexpected(error, path),
  } as unknown as Parameters<typeof createOpenApiNodeHttpHandler>[0]);

  return async function handleRest(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(REST_PREFIX.length) || "/";
    const matching = routes.filter((route) => route.pattern.test(path));
    // A static path wins over a parameter: GET /notes/export is the export's path, not note "export".
    const exact = matching.filter((route) => !route.meta.openapi.path.includes("{"));
    const candidates = exact.length > 0 ? exact : matching;
    const route = candidates.find((candidate) => candidate.method === request.method);
    if (!route) {
      if (candidates.length === 0) return edgeError("NOT_FOUND", `No such endpoint: ${request.method} ${url.pathname}`);
      const allow = [...new Set(candidates.map((candidate) => candidate.method))].join(", ");
      return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on ${url.pathname}; use ${allow}`, { Allow: allow });
    }

    let input: unknown;
    try {
      input = request.method === "GET" || request.method === "DELETE" ? undefined : await readInput(request, route);
    } catch (error) {
      if (error instanceof PayloadTooLargeError) return edgeError("PAYLOAD_TOO_LARGE", error.message);
      if (error instanceof TRPCError) return edgeError(error.code, error.message);
      throw error;
    }

    if (route.meta.download) return download(route, request, input);

    const headers = new Headers(request.headers);
    headers.set("content-type", JSON_TYPE);
    const proxied = new Proxy(request, {
      get(target, property) {
        if (property === "url") return `${url.origin}${path}${url.search}`;
        if (property === "body") return input;
        if (property === "headers") return headers;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    contexts.set(proxied, { ...createContext(request, "rest"), response: {} });
    return toContractResponse(await runHandler(proxied));
  };

  /**
   * Runs trpc-to-openapi's handler against a response object that collects what it writes. The
   * handler ends every request it knows; should it reject or return without ending, the request
   * still ends (as a 500, through the edge's error handler).
   */
  function runHandler(request: Request): Promise<Response> {
    return new Promise((resolve, reject) => {
      const headers = new Headers();
      let status = 200;
      let ended = false;
      const response = {
        setHeader: (key: string, value: string | string[]) => {
          for (const item of Array.isArray(value) ? value : [value]) headers.append(key, item);
        },
        get statusCode() {
          return status;
        },
        set statusCode(code: number) {
          status = code;
        },
        end: (body?: string) => {
          ended = true;
          resolve(new Response(status === 204 ? null : body, { status, headers }));
        },
      };
      (handler as unknown as (req: unknown, res: unknown) => Promise<void>)(request, response).then(() => {
        if (!ended) reject(new Error(`the REST handler returned without answering ${request.method} ${request.url}`));
      }, reject);
    });
  }

  async function download(route: Route, request: Request, input: unknown): Promise<Response> {
    const ctx = createContext(request, "download");
    try {
      const caller = router.createCaller(ctx) as Record<string, Record<string, (input: unknown) => Promise<Response>>>;
      const [namespace, name] = route.path.split(".") as [string, string];
      return await caller[namespace]![name]!(input);
    } catch (cause) {
      const error = cause instanceof TRPCError ? cause : new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause });
      logUnexpected(error, route.path);
      const shape = getErrorShape({ config: router._def._config, error, type: "mutation", path: route.path, input, ctx });
      return trpcErrorResponse(error, shape as never);
    }
  }
}

async function readInput(request: Request, route: Route): Promise<unknown> {
  const text = await readBodyText(request, bodyLimitOf(route.meta));
  const type = mediaType(request);
  if (text.trim() === "") return undefined;
  if (type === JSON_TYPE || type.endsWith("+json")) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new TRPCError({ code: "BAD_REQUEST", message: `Malformed JSON in request body: ${(error as Error).message}` });
    }
  }
  if (type === FORM && route.meta.openapi.contentTypes?.includes(FORM)) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  const accepted = route.meta.openapi.contentTypes?.includes(FORM) ? `${FORM} or ${JSON_TYPE}` : JSON_TYPE;
  throw new TRPCError({
    code: "UNSUPPORTED_MEDIA_TYPE",
    message: type ? `Unsupported content type ${type}; send ${accepted}` : `Missing Content-Type; send ${accepted}`,
  });
}

/** trpc-to-openapi's error body spreads the whole tRPC shape; reduce it to `{code, message, issues?}`. */
async function toContractResponse(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const body = (await response.json()) as { code: string; message: string; data?: { issues?: unknown } };
  const contract: Record<string, unknown> = { code: body.code, message: body.message };
  if (body.data?.issues) contract.issues = body.data.issues;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json(contract, { status: response.status, headers });
}

