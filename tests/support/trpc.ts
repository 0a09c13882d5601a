// The service as a typed tRPC client sees it over /trpc, and what a failed call's error says.
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/root";

export type TrpcClient = ReturnType<typeof trpcClient>;

/** A typed client of the server at `baseUrl`, carrying `token` (none: anonymous). */
export function trpcClient(baseUrl: string, token?: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${baseUrl}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) })],
  });
}

/** The error code, status and message a call failed with; throws when it succeeded. */
export async function trpcFailure(call: Promise<unknown>): Promise<{ code: string | undefined; status: number | undefined; message: string }> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`the call succeeded: ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof TRPCClientError)) throw outcome.error;
  const error = outcome.error as TRPCClientError<AppRouter>;
  return { code: error.data?.code, status: error.data?.httpStatus, message: error.message };
}
