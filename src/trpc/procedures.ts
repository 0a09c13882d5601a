import { authenticateBearer } from "../modules/auth/authenticate";
import { toTrpcError } from "./errors";
import { t } from "./init";

/** Maps business errors (and a database that stayed busy) to transport errors, for every procedure. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = toTrpcError(result.error.cause);
    if (mapped) throw mapped;
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors);

const authenticate = (accept: "full" | "pending") =>
  t.middleware(async ({ ctx, next }) => {
    const { session, user } = await authenticateBearer(ctx.db, ctx.authorization, accept);
    // tRPC merges these into the context; spreading it here as well would copy it twice a request.
    return next({ ctx: { user, session, userId: user.id } });
  });

/** Needs a full session: `ctx.user`, `ctx.session` and `ctx.userId` are set. */
export const protectedProcedure = publicProcedure.use(authenticate("full"));

/** Needs the pending session of a TOTP login (only /api/auth/totp/verify). */
export const pendingTotpProcedure = publicProcedure.use(authenticate("pending"));
