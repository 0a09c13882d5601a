import { z } from "zod";
import { passwordSchema, secondFactorCodeSchema } from "../auth/schemas";

const codeField = secondFactorCodeSchema.optional().describe("A TOTP or recovery code; required when the account has TOTP enabled");
/** What was typed as the current password: checked, never stored, so only bounded. */
const typedPassword = z.string().min(1).max(1024);

export const changePasswordInput = z.object({
  current_password: typedPassword.describe("The password in force now"),
  new_password: passwordSchema.describe("8..128 characters, no composition rules"),
  code: codeField,
});

export const deleteAccountInput = z.object({
  password: typedPassword.describe("The account's password"),
  code: codeField,
});

export const loginSessionSchema = z
  .object({
    id: z.number().int().positive(),
    created_at: z.iso.datetime().describe("When the login was made"),
    last_used_at: z.iso.datetime().nullable().describe("Updated at most once a minute; null for sessions made before it was kept"),
    expires_at: z.iso.datetime().describe("30 days after the last renewal; extended on use when less than 15 days are left"),
    user_agent: z.string().nullable().describe("The User-Agent of the login request (at most 256 characters); null when the client sent none"),
    current: z.boolean().describe("True for the session that made this request"),
  })
  .meta({ id: "LoginSession" });

export const loginSessionListSchema = z.object({ items: z.array(loginSessionSchema) }).meta({ id: "LoginSessionList" });

export const loginSessionIdInput = z.object({
  id: z.coerce.number({ error: "Must be a positive integer id" }).int("Must be a positive integer id").positive("Must be a positive integer id").max(Number.MAX_SAFE_INTEGER),
});

export type LoginSessionItem = z.infer<typeof loginSessionSchema>;
