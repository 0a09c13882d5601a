import { and, eq, isNull, lt, or } from "drizzle-orm";
import { users } from "../../db/schema";
import type { ServiceContext } from "../context";
import { consumeRecoveryCode } from "./recovery-codes";
import { assertNotThrottled, recordFailure, SECOND_FACTOR_PER_USER, throttleKeys } from "./throttle";
import { matchTotpStep } from "./totp";

/**
 * Checks a TOTP code (each time step accepted once) or an unused recovery code for a user whose
 * secret is stored. Wrong codes count toward the per-user second-factor throttle; once it trips,
 * even a correct code gets 429 until the block ends.
 */
export async function checkSecondFactor(
  ctx: ServiceContext,
  user: { id: number; totpSecret: string | null; totpLastStep: number | null },
  code: string,
  options: { allowRecoveryCode: boolean },
): Promise<boolean> {
  const throttleKey = throttleKeys.secondFactor(user.id);
  await assertNotThrottled(ctx.db, [throttleKey], "Too many wrong two-factor codes; try again later");
  if (user.totpSecret && (await acceptTotpCode(ctx, user.id, await ctx.secretBox.open(user.totpSecret), code, user.totpLastStep))) {
    return true;
  }
  if (options.allowRecoveryCode && !/^\d{6}$/.test(code) && (await consumeRecoveryCode(ctx, user.id, code))) return true;
  await recordFailure(ctx.db, throttleKey, SECOND_FACTOR_PER_USER);
  return false;
}

async function acceptTotpCode(ctx: ServiceContext, userId: number, secret: string, code: string, lastStep: number | null) {
  const step = matchTotpStep(secret, code, lastStep);
  if (step === null) return false;
  // Conditional on the stored step so two concurrent requests cannot both spend the same code.
  const updated = await ctx.db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return updated.length > 0;
}
