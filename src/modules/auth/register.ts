import { sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { users } from "../../db/schema";
import type { ServiceContext } from "../context";
import { ConflictError, ForbiddenError } from "../errors";
import { hashPassword } from "./passwords";
import type { registerInput, UserRecord } from "./schemas";
import { toUserRecord } from "./user-record";

export const REGISTRATION_CLOSED = "Registration is closed on this server";

type Registration = Pick<ServiceContext, "db" | "registration">;

/**
 * Whether a new account may be made: always with REGISTRATION=open, and with `closed` only while
 * no account exists (the owner's first one).
 */
export async function registrationOpen(ctx: Registration): Promise<{ open: boolean }> {
  if (ctx.registration !== "closed") return { open: true };
  return { open: !(await anyAccount(ctx.db)) };
}

async function anyAccount(db: Database): Promise<boolean> {
  const [row] = await db.select({ one: sql<number>`1` }).from(users).limit(1);
  return row !== undefined;
}

export async function registerUser({ ctx, input }: { ctx: Registration; input: z.infer<typeof registerInput> }): Promise<UserRecord> {
  const closed = ctx.registration === "closed";
  // Refused before the (deliberately slow) hash when closed; the insert below checks again.
  if (closed && (await anyAccount(ctx.db))) throw new ForbiddenError(REGISTRATION_CLOSED);
  const passwordHash = await hashPassword(input.password);
  const values = { username: input.username, usernameKey: input.username.toLowerCase(), passwordHash, createdAt: Date.now() };
  // Closed: the first account is made only if none exists in the same statement, so two at once cannot both be first.
  const [user] = closed
    ? await ctx.db.all<{ id: number; username: string; createdAt: number; totpEnabled: number }>(sql`
        insert into ${users} (username, username_key, password_hash, created_at)
        select ${values.username}, ${values.usernameKey}, ${values.passwordHash}, ${values.createdAt}
        where not exists (select 1 from ${users})
        returning id, username, created_at as createdAt, totp_enabled as totpEnabled`)
    : await ctx.db.insert(users).values(values).onConflictDoNothing({ target: users.usernameKey }).returning();
  if (!user) {
    // Closed, nothing was inserted only because an account exists (with none, no username can be taken).
    if (closed) throw new ForbiddenError(REGISTRATION_CLOSED);
    throw new ConflictError(`Username "${input.username}" is already taken`);
  }
  return toUserRecord({ ...user, totpEnabled: Boolean(user.totpEnabled) });
}
