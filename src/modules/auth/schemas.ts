import { z } from "zod";
import { storageSchema } from "../files/schemas";

export const usernameSchema = z
  .string()
  .min(3)
  .max(32)
  .regex(/^[A-Za-z0-9_.-]+$/, "May contain only letters, digits, '_', '.' and '-'")
  .meta({ example: "ada" });

export const passwordSchema = z.string().min(8).max(128).meta({ example: "correct horse battery staple" });

/** A 6-digit TOTP code or a recovery code (`xxxxx-xxxxx`). */
export const secondFactorCodeSchema = z.string().trim().min(6).max(32).meta({ example: "123456" });

export const userSchema = z
  .object({
    id: z.number().int().positive(),
    username: z.string(),
    created_at: z.iso.datetime(),
    totp_enabled: z.boolean(),
  })
  .meta({ id: "User" });


export const registrationSchema = z
  .object({ open: z.boolean().describe("Whether POST /api/auth/register would make a new account") })
  .meta({ id: "Registration" });

export const registerInput = z.object({ username: usernameSchema, password: passwordSchema });

export const loginInput = z
  .object({
    username: z.string().min(1).max(128),
    password: z.string().min(1).max(1024),
    totp_code: secondFactorCodeSchema.optional().describe("TOTP or recovery code, for accounts with TOTP enabled"),
    grant_type: z.string().optional().describe("Accepted and ignored (OAuth 2.0 password form)"),
    scope: z.string().optional().describe("Accepted and ignored"),
    client_id: z.string().optional().describe("Accepted and ignored"),
    client_secret: z.string().optional().describe("Accepted and ignored"),
  })
  .meta({ id: "LoginForm" });

export const tokenSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_at: z.iso.datetime(),
    totp_required: z.boolean().describe("When true, the token is a 5-minute pending token for /api/auth/totp/verify only"),
  })
  .meta({ id: "Token" });

export const totpSetupOutput = z.object({
  secret: z.string().describe("Base32 secret for the authenticator app"),
  otpauth_uri: z.string(),
});

export const codeInput = z.object({ code: secondFactorCodeSchema });
export const recoveryCodesOutput = z.object({ recovery_codes: z.array(z.string()).length(10) });
export const totpDisableInput = z.object({ password: z.string().min(1).max(1024), code: secondFactorCodeSchema });

export type UserRecord = z.infer<typeof userSchema>;

const usageCount = () => z.number().int().min(0);
/** `GET /api/auth/me`: the user record, what the account keeps and what it has spent. */
export const currentUserSchema = userSchema
  .extend({
    storage: storageSchema,
    usage: z
      .object({
        llm_calls: usageCount(),
        input_tokens: usageCount(),
        output_tokens: usageCount(),
        transcribed_seconds: usageCount().describe("Seconds of video and recordings sent to speech-to-text (a kept transcript costs nothing)"),
        stt_requests: usageCount().describe("Requests made to the speech-to-text server, retries included"),
      })
      .describe("The account's all-time LLM usage: graph builds and questions together, and speech-to-text"),
  })
  .meta({ id: "CurrentUser" });
export type TokenRecord = z.infer<typeof tokenSchema>;
