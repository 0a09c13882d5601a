import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { hashPassword } from "../auth/passwords";
import type { SessionContext } from "../context";
import { confirmIdentity } from "./confirm-identity";
import { otherLoginsEnd } from "./login-sessions";

/**
 * A new password, in force at once: the current password (and the second factor, when on) first;
 * then, in one transaction, the new hash and the end of every other login of the account. The
 * current session, access tokens and connector grants stay (revoke those in the tokens list).
 */
export async function changePassword({ ctx, input }: { ctx: SessionContext; input: { current_password: string; new_password: string; code?: string } }): Promise<void> {
  await confirmIdentity(ctx, input.current_password, input.code);
  const passwordHash = await hashPassword(input.new_password);
  await ctx.db.batch([ctx.db.update(users).set({ passwordHash }).where(eq(users.id, ctx.userId)), ...otherLoginsEnd(ctx.db, ctx.userId, ctx.session.id)]);
}
