import type { z } from "zod";
import { users } from "../../db/schema";
import type { ServiceContext } from "../context";
import { ConflictError } from "../errors";
import { hashPassword } from "./passwords";
import type { registerInput, UserRecord } from "./schemas";
import { toUserRecord } from "./user-record";

export async function registerUser({ ctx, input }: { ctx: ServiceContext; input: z.infer<typeof registerInput> }): Promise<UserRecord> {
  const passwordHash = await hashPassword(input.password);
  const [user] = await ctx.db
    .insert(users)
    .values({ username: input.username, usernameKey: input.username.toLowerCase(), passwordHash, createdAt: Date.now() })
    .onConflictDoNothing({ target: users.usernameKey })
    .returning();
  if (!user) throw new ConflictError(`Username "${input.username}" is already taken`);
  return toUserRecord(user);
}
