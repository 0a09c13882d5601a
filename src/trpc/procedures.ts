import { authenticateBearer } from "../modules/auth/authenticate";
import { ForbiddenError } from "../modules/errors";
import { authorize } from "../modules/tokens/credential";
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

/**
 * Needs a bearer credential allowed what the procedure's `meta.access` says (a login session when
 * it says nothing): `ctx.user`, `ctx.userId` and `ctx.credential` are set. Every face (tRPC, REST,
 * MCP) calls procedures, so this is where scopes are enforced for all of them.
 */
export const protectedProcedure = publicProcedure.use(async ({ ctx, meta, next }) => {
  const { user, credential } = ctx.authenticated ?? (await authenticateBearer(ctx.db, ctx.authorization));
  authorize(credential, meta?.access ?? "session");
  // tRPC merges these into the context; spreading it here as well would copy it twice a request.
  return next({ ctx: { user, credential, userId: user.id } });
});

/** Needs a login session (logout, TOTP, tickets): `ctx.session` is set too. */
export const sessionProcedure = protectedProcedure.meta({ access: "session" }).use(({ ctx, next }) => {
  if (ctx.credential.kind !== "session") throw new ForbiddenError("This operation needs a login session");
  return next({ ctx: { session: ctx.credential.session } });
});

/** Needs the pending session of a TOTP login (only /api/auth/totp/verify). */
export const pendingTotpProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const { user, credential } = await authenticateBearer(ctx.db, ctx.authorization, "pending");
  if (credential.kind !== "session") throw new ForbiddenError("This endpoint takes the pending token of a TOTP login");
  return next({ ctx: { user, credential, session: credential.session, userId: user.id } });
});
