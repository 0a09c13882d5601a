import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { verifyPassword } from "../auth/passwords";
import { checkSecondFactor } from "../auth/second-factor";
import { assertNotThrottled, recordFailure, SECOND_FACTOR_PER_USER, throttleKeys } from "../auth/throttle";
import type { AuthedContext } from "../context";
import { InvalidInputError, UnauthenticatedError } from "../errors";

export type AccountRow = typeof users.$inferSelect;

/**
 * The person at a login session proves it is them before a lasting change to the account (a new
 * password, its deletion): the password, and a TOTP or recovery code when TOTP is on. A wrong
 * password counts toward the per-user second-factor throttle, like a wrong code, so a stolen
 * session cannot be used to guess the password; a wrong either is a 401 and changes nothing.
 */
export async function confirmIdentity(ctx: AuthedContext, password: string, code: string | undefined): Promise<AccountRow> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, ctx.userId));
  if (!user) throw new UnauthenticatedError("The account no longer exists");
  const throttleKey = throttleKeys.secondFactor(user.id);
  await assertNotThrottled(ctx.db, [throttleKey], "Too many failed attempts; try again later");
  if (!(await verifyPassword(password, user.passwordHash))) {
    await recordFailure(ctx.db, throttleKey, SECOND_FACTOR_PER_USER);
    throw new UnauthenticatedError("Incorrect password");
  }
  if (user.totpEnabled) {
    if (code === undefined) throw new InvalidInputError("This account uses two-factor authentication: send `code` (a TOTP or recovery code) as well");
    if (!(await checkSecondFactor(ctx, user, code, { allowRecoveryCode: true }))) throw new UnauthenticatedError("Invalid two-factor code");
  }
  return user;
}
