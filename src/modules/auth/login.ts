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
  const user = await checkPassword(ctx, input.username, input.password);
  if (user.totpEnabled) {
    if (input.totp_code === undefined) return issueToken(ctx, user.id, true);
    if (!(await checkSecondFactor(ctx, user, input.totp_code, { allowRecoveryCode: true }))) {
      throw new UnauthenticatedError("Invalid two-factor code");
    }
  }
  return issueToken(ctx, user.id, false);
}

/**
 * The user whose username and password these are, under the login throttle (per username and per
 * client address): the API's login and the connectors' authorization page count the same failures.
 */
export async function checkPassword(ctx: RequestContext, username: string, password: string): Promise<typeof users.$inferSelect> {
  const userKey = throttleKeys.loginUsername(username);
  const addressKey = throttleKeys.loginAddress(ctx.clientAddress());
  await assertNotThrottled(ctx.db, [userKey, addressKey], "Too many failed login attempts; try again later");

  const [user] = await ctx.db.select().from(users).where(eq(users.usernameKey, username.toLowerCase()));
  const passwordOk = user ? await verifyPassword(password, user.passwordHash) : await verifyAgainstDummy(password);
  if (!user || !passwordOk) {
    await recordFailure(ctx.db, userKey, LOGIN_PER_USERNAME);
    await recordFailure(ctx.db, addressKey, LOGIN_PER_ADDRESS);
    throw new UnauthenticatedError(WRONG_CREDENTIALS);
  }
  await clearFailures(ctx.db, userKey);
  return user;
}

export async function issueToken(ctx: RequestContext, userId: number, pendingTotp: boolean): Promise<TokenRecord> {
  const { token, session } = await createSession(ctx.db, userId, { pendingTotp, userAgent: ctx.userAgent?.() });
  return {
    access_token: token,
    token_type: "bearer",
    expires_at: new Date(session.expiresAt).toISOString(),
    totp_required: pendingTotp,
  };
}
