import { eq } from "drizzle-orm";
import type { z } from "zod";
import { users } from "../../db/schema";
import type { RequestContext } from "../context";
import { UnauthenticatedError } from "../errors";
import { verifyAgainstDummy, verifyPassword } from "./passwords";
import type { loginInput, TokenRecord } from "./schemas";
import { checkSecondFactor } from "./second-factor";
import { createSession } from "./sessions";
import { assertNotThrottled, clearFailures, LOGIN_PER_ADDRESS, LOGIN_PER_USERNAME, recordFailure, throttleKeys } from "./throttle";

export const WRONG_CREDENTIALS = "Incorrect username or password";

/**
 * Password login. A TOTP user without `totp_code` gets a 5-minute pending token for
 * /api/auth/totp/verify; with a valid code (or recovery code) the full token comes at once.
 */
export async function login({ ctx, input }: { ctx: RequestContext; input: z.infer<typeof loginInput> }): Promise<TokenRecord> {
  const userKey = throttleKeys.loginUsername(input.username);
  const addressKey = throttleKeys.loginAddress(ctx.clientAddress());
  await assertNotThrottled(ctx.db, [userKey, addressKey], "Too many failed login attempts; try again later");

  const [user] = await ctx.db.select().from(users).where(eq(users.usernameKey, input.username.toLowerCase()));
  const passwordOk = user ? await verifyPassword(input.password, user.passwordHash) : await verifyAgainstDummy(input.password);
  if (!user || !passwordOk) {
    await recordFailure(ctx.db, userKey, LOGIN_PER_USERNAME);
    await recordFailure(ctx.db, addressKey, LOGIN_PER_ADDRESS);
    throw new UnauthenticatedError(WRONG_CREDENTIALS);
  }
  await clearFailures(ctx.db, userKey);

  if (user.totpEnabled) {
    if (input.totp_code === undefined) return issueToken(ctx, user.id, true);
    if (!(await checkSecondFactor(ctx, user, input.totp_code, { allowRecoveryCode: true }))) {
      throw new UnauthenticatedError("Invalid two-factor code");
    }
  }
  return issueToken(ctx, user.id, false);
}

export async function issueToken(ctx: RequestContext, userId: number, pendingTotp: boolean): Promise<TokenRecord> {
  const { token, session } = await createSession(ctx.db, userId, { pendingTotp });
  return {
    access_token: token,
    token_type: "bearer",
    expires_at: new Date(session.expiresAt).toISOString(),
    totp_required: pendingTotp,
  };
}
