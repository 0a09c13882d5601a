import type { ServiceContext } from "../modules/context";

/** Per-request context: the services plus what the HTTP edge learned about the request. */
export interface TrpcContext extends ServiceContext {
  clientAddress: string;
  /** The raw `Authorization` header, checked lazily by protected procedures. */
  authorization: string | null;
  /** Binary responses (the ZIP export) can only be sent by the REST edge. */
  transport: "rest" | "rpc" | "download";
}

export function createContextInner(options: TrpcContext): TrpcContext {
  return options;
}
