import { TRPCError, type AnyProcedure, type AnyRouter } from "@trpc/server";
import {
  coerceSchema,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce,
} from "trpc-to-openapi";
import { ZodArray, type ZodType } from "zod/v4";
import type { TrpcContext } from "../trpc/context";
import { callProcedure, errorOfCall } from "../trpc/call-procedure";
import { edgeError, PayloadTooLargeError, trpcErrorResponse } from "./error-response";
import { bodyLimitOf, proceduresWithMeta, REST_PREFIX, type RestProcedure } from "./procedure-meta";
import { mediaType, readBodyText } from "./request-body";

const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";
// Answers carry notes' text: a browser must never read them as anything but JSON.
const JSON_HEADERS = { "content-type": JSON_TYPE, "x-content-type-options": "nosniff" };

interface Route extends RestProcedure {
  method: string;
  pattern: RegExp;
  /** trpc-to-openapi's own pattern for the path: its named groups are the path parameters. */
  parameters: RegExp;
  procedure: AnyProcedure;
  /** The input schema as trpc-to-openapi sees it (unwrapped); undefined when the procedure takes none. */
  inputSchema: ZodType | undefined;
  /** Whether trpc-to-openapi's coercion has been applied to the schema: on the route's first request, as the library did. */
  coerced: boolean;
}

type ContextFactory = (request: Request, transport: TrpcContext["transport"]) => TrpcContext;

/**
 * The REST surface at /api, with trpc-to-openapi's semantics (its route meta and document; its
 * query-string and path-parameter input, coerced alike) but not its per-request adapter, whose
 * request copy, body re-serialisation and error round trip cost more than the work of a read. The
 * edge matches the route (404 vs 405), enforces the route's body limit, turns JSON or the OAuth2
 * login form into input, calls the procedure and writes its JSON once; binary downloads are
 * streamed; every error gets the contract's body.
 */
export function createRestHandler(router: AnyRouter, createContext: ContextFactory) {
  const procedures = router._def.procedures as Record<string, AnyProcedure>;
  const routes: Route[] = proceduresWithMeta(router).map((meta) => {
    const procedure = procedures[meta.path]!;
    const inputSchema = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
    return {
      ...meta,
      method: meta.meta.openapi.method,
      pattern: new RegExp(`^${meta.meta.openapi.path.replace(/\{(\w+)\}/g, "([^/]+)")}/?$`),
      parameters: getPathRegExp(normalizePath(meta.meta.openapi.path)),
      procedure,
      inputSchema: instanceofZodTypeLikeVoid(inputSchema) ? undefined : inputSchema,
      coerced: false,
    };
  });
  const successStatus = new Map(routes.map((route) => [route.path, route.meta.successStatus ?? 200]));

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

    const hasBody = request.method !== "GET" && request.method !== "DELETE";
    let body: unknown;
    try {
      body = hasBody ? await readInput(request, route) : undefined;
    } catch (error) {
      if (error instanceof PayloadTooLargeError) return edgeError("PAYLOAD_TOO_LARGE", error.message);
      if (error instanceof TRPCError) return edgeError(error.code, error.message);
      throw error;
    }

    if (route.meta.download) return download(route, request, body);

    const input = restInput(route, url, path, hasBody, body);
    const ctx: TrpcContext = { ...createContext(request, "rest"), response: {} };
    try {
      const data = await callProcedure(router, route.path, ctx, input);
      const status = ctx.response?.status ?? successStatus.get(route.path) ?? 200;
      return new Response(status === 204 ? null : JSON.stringify(data), { status, headers: JSON_HEADERS });
    } catch (cause) {
      const { error, body } = errorOfCall(router, cause, { path: route.path, ctx, input });
      return trpcErrorResponse(error, body);
    }
  };

  async function download(route: Route, request: Request, input: unknown): Promise<Response> {
    const ctx = createContext(request, "download");
    try {
      const caller = router.createCaller(ctx) as Record<string, Record<string, (input: unknown) => Promise<Response>>>;
      const [namespace, name] = route.path.split(".") as [string, string];
      return await caller[namespace]![name]!(input);
    } catch (cause) {
      const { error, body } = errorOfCall(router, cause, { path: route.path, ctx, input });
      return trpcErrorResponse(error, body);
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
  const raw = route.meta.rawBody;
  if (raw?.contentTypes.includes(type)) return { [raw.field]: text };
  const accepted = raw ? `${raw.contentTypes.join(", ")} or ${JSON_TYPE}` : route.meta.openapi.contentTypes?.includes(FORM) ? `${FORM} or ${JSON_TYPE}` : JSON_TYPE;
  throw new TRPCError({
    code: "UNSUPPORTED_MEDIA_TYPE",
    message: type ? `Unsupported content type ${type}; send ${accepted}` : `Missing Content-Type; send ${accepted}`,
  });
}

/**
 * A REST request's input as trpc-to-openapi builds it: the query string (a key given once is a
 * string, more often an array; an array field is always an array) or the body, the path
 * parameters over it, and the schema's numbers, booleans and dates coerced from strings.
 */
function restInput(route: Route, url: URL, path: string, hasBody: boolean, body: unknown): unknown {
  const schema = route.inputSchema;
  if (schema === undefined) return undefined;
  const parameters = route.parameters.exec(normalizePath(path))?.groups ?? {};
  const input: Record<string, unknown> = { ...(hasBody ? (body as object) : queryInput(url)), ...parameters };
  if (zodSupportsCoerce && instanceofZodTypeObject(schema)) {
    if (!hasBody) {
      for (const [key, shape] of Object.entries(schema.shape)) {
        const isArray = shape instanceof ZodArray || (instanceofZodTypeOptional(shape) && (shape as { unwrap(): unknown }).unwrap() instanceof ZodArray);
        if (isArray && input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
      }
    }
    if (!route.coerced) {
      coerceSchema(schema);
      route.coerced = true;
    }
  }
  return input;
}

function queryInput(url: URL): Record<string, string | string[]> {
  const query: Record<string, string[]> = {};
  url.searchParams.forEach((value, key) => (query[key] ??= []).push(value));
  const input: Record<string, string | string[]> = {};
  for (const key in query) input[key] = query[key]!.length === 1 ? query[key]![0]! : query[key]!;
  return input;
}
