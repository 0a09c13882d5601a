import type { SessionContext } from "../context";
import { confirmIdentity } from "./confirm-identity";
import { eraseAccount } from "./erase-account";

/**
 * POST /api/auth/delete-account: the password (and the second factor, when on) first, so a wrong
 * one deletes nothing; then the account and everything it owns. Its username is free again.
 */
export async function deleteAccount({ ctx, input }: { ctx: SessionContext; input: { password: string; code?: string } }): Promise<void> {
  const user = await confirmIdentity(ctx, input.password, input.code);
  await eraseAccount({ db: ctx.db, files: ctx.files, uploadDirs: ctx.uploadDirs }, user);
}
