import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import type { AuthedContext } from "../context";
import { ConflictError, InvalidInputError } from "../errors";
import { verifyPassword } from "./passwords";
import { generateRecoveryCodes, replaceRecoveryCodes } from "./recovery-codes";
import { checkSecondFactor } from "./second-factor";
import { assertNotThrottled, recordFailure, SECOND_FACTOR_PER_USER, throttleKeys } from "./throttle";
import { generateTotpSecret, totpUri } from "./totp";

async function loadUser(ctx: AuthedContext) {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, ctx.user.id));
  if (!user) throw new InvalidInputError("The account no longer exists");
  return user;
}

/** Starts (or restarts) enrolment: a new secret replaces one not yet enabled. */
export async function setupTotp({ ctx }: { ctx: AuthedContext }): Promise<{ secret: string; otpauth_uri: string }> {
  const user = await loadUser(ctx);
  if (user.totpEnabled) throw new ConflictError("TOTP is already enabled; disable it first to enrol a new authenticator");
  const secret = generateTotpSecret();
  await ctx.db
    .update(users)
    .set({ totpSecret: await ctx.secretBox.seal(secret), totpLastStep: null })
    .where(eq(users.id, user.id));
  return { secret, otpauth_uri: totpUri(user.username, secret) };
}

/** Confirms enrolment with a code from the authenticator and hands out the recovery codes, once. */
export async function enableTotp({ ctx, input }: { ctx: AuthedContext; input: { code: string } }): Promise<{ recovery_codes: string[] }> {
  const user = await loadUser(ctx);
  if (user.totpEnabled) throw new ConflictError("TOTP is already enabled");
  if (!user.totpSecret) throw new ConflictError("Call /api/auth/totp/setup first");
  if (!(await checkSecondFactor(ctx, user, input.code, { allowRecoveryCode: false }))) {
    throw new InvalidInputError("The code does not match; check the authenticator's clock and try the current code");
  }
  const codes = generateRecoveryCodes();
  await replaceRecoveryCodes(ctx, user.id, codes);
  await ctx.db.update(users).set({ totpEnabled: true }).where(eq(users.id, user.id));
  return { recovery_codes: codes };
}

export async function disableTotp({ ctx, input }: { ctx: AuthedContext; input: { password: string; code: string } }): Promise<void> {
  const user = await loadUser(ctx);
  if (!user.totpEnabled) throw new ConflictError("TOTP is not enabled");
  // A wrong password counts like a wrong code, so a stolen token cannot guess passwords here.
  const throttleKey = throttleKeys.secondFactor(user.id);
  await assertNotThrottled(ctx.db, [throttleKey], "Too many failed attempts; try again later");
  if (!(await verifyPassword(input.password, user.passwordHash))) {
    await recordFailure(ctx.db, throttleKey, SECOND_FACTOR_PER_USER);
    throw new InvalidInputError("Incorrect password");
  }
  if (!(await checkSecondFactor(ctx, user, input.code, { allowRecoveryCode: true }))) {
    throw new InvalidInputError("Invalid two-factor code");
  }
  await replaceRecoveryCodes(ctx, user.id, []);
  await ctx.db.update(users).set({ totpEnabled: false, totpSecret: null, totpLastStep: null }).where(eq(users.id, user.id));
}
