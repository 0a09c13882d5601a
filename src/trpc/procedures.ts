import { TRPCError } from "@trpc/server";
import { validateSessionToken } from "../modules/auth/sessions";
import { isDatabaseBusy, toTrpcError } from "./errors";
import { t } from "./init";

/** Maps business errors (and a database that stayed busy) to transport errors, for every procedure. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    const mapped = toTrpcError(cause);
    if (mapped) throw mapped;
    if (isDatabaseBusy(cause)) throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "The database is busy; retry shortly", cause });
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors);

function bearerToken(authorization: string | null): string {
  const match = authorization?.match(/^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i);
  if (!match) {
    throw new TRPCError({
      code: "UNAUTHORIZED",
      message: authorization ? "The Authorization header must be `Bearer <token>`" : "Missing bearer token",
    });
  }
  return match[1]!;
}

const authenticate = (accept: "full" | "pending") =>
  t.middleware(async ({ ctx, next }) => {
    const validated = await validateSessionToken(ctx.db, bearerToken(ctx.authorization));
    if (!validated) throw new TRPCError({ code: "UNAUTHORIZED", message: "Invalid or expired token" });
    if (validated.session.pendingTotp !== (accept === "pending")) {
      throw new TRPCError({
        code: "UNAUTHORIZED",
        message:
          accept === "full"
            ? "This token is waiting for its second factor: send the code to /api/auth/totp/verify"
            : "This endpoint takes the pending token of a TOTP login",
      });
    }
    return next({ ctx: { ...ctx, user: validated.user, session: validated.session, userId: validated.user.id } });
  });

/** Needs a full session: `ctx.user`, `ctx.session` and `ctx.userId` are set. */
export const protectedProcedure = publicProcedure.use(authenticate("full"));

/** Needs the pending session of a TOTP login (only /api/auth/totp/verify). */
export const pendingTotpProcedure = publicProcedure.use(authenticate("pending"));
