import type { ServiceContext } from "../modules/context";
import type { Authenticated } from "../modules/tokens/credential";

/** Per-request context: the services plus what the HTTP edge learned about the request. */
export interface TrpcContext extends ServiceContext {
  clientAddress: () => string;
  /** The request's User-Agent, kept with the login session a login makes. */
  userAgent?: () => string | null;
  /** The raw `Authorization` header, checked lazily by protected procedures. */
  authorization: string | null;
  /** Binary responses (the ZIP export) can only be sent by the REST edge. */
  transport: "rest" | "rpc" | "download" | "mcp";
  /** Set by an edge that has already checked the bearer token (/mcp does, to list the tools it allows). */
  authenticated?: Authenticated;
  /** Set by the REST edge: a procedure whose success status depends on its input (a build's dry run is 200, not 202) writes it here. */
  response?: { status?: number };
}

export function createContextInner(options: TrpcContext): TrpcContext {
  return options;
}
