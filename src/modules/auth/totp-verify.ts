import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import type { SessionContext } from "../context";
import { UnauthenticatedError } from "../errors";
import { issueToken } from "./login";
import type { TokenRecord } from "./schemas";
import { checkSecondFactor } from "./second-factor";
import { invalidateSession, recordFailedTotpAttempt } from "./sessions";

const MAX_WRONG_CODES_PER_PENDING_TOKEN = 5;

/** Second step of a TOTP login: trades the pending token and a code for a full token. */
export async function verifyTotpLogin({ ctx, input }: { ctx: SessionContext; input: { code: string } }): Promise<TokenRecord> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, ctx.user.id));
  if (!user?.totpEnabled) {
    await invalidateSession(ctx.db, ctx.session.id);
    throw new UnauthenticatedError("Two-factor authentication is no longer enabled; log in again");
  }
  if (!(await checkSecondFactor(ctx, user, input.code, { allowRecoveryCode: true }))) {
    const failures = await recordFailedTotpAttempt(ctx.db, ctx.session.id);
    if (failures >= MAX_WRONG_CODES_PER_PENDING_TOKEN) {
      await invalidateSession(ctx.db, ctx.session.id);
      throw new UnauthenticatedError("Too many wrong codes: this login was cancelled; log in again");
    }
    throw new UnauthenticatedError("Invalid two-factor code");
  }
  await invalidateSession(ctx.db, ctx.session.id);
  return issueToken(ctx, user.id, false);
}
