import { z } from "zod";
import { secondFactorCodeSchema } from "../auth/schemas";
import { normaliseLine } from "../notes/note-text";
import { SCOPE_NAMES, SCOPES } from "./scopes";

export const MAX_NAME_UNITS = 64;
export const DEFAULT_EXPIRES_IN_DAYS = 90;

export const scopeSchema = z.enum(SCOPE_NAMES).meta({
  id: "Scope",
  description: Object.entries(SCOPES)
    .map(([scope, allows]) => `\`${scope}\`: ${allows}`)
    .join("; "),
});

export const createTokenInput = z.object({
  name: z
    .string()
    .overwrite(normaliseLine)
    .min(1)
    .refine((name) => name.length <= MAX_NAME_UNITS, `Too big: expected at most ${MAX_NAME_UNITS} UTF-16 code units`)
    .meta({ maxLength: MAX_NAME_UNITS, description: "What the token is for, 1..64 characters", example: "Claude Code on my laptop" }),
  scopes: z
    .array(scopeSchema)
    .min(1, "Give at least one scope")
    .max(SCOPE_NAMES.length * 4)
    .transform((scopes) => [...new Set(scopes)])
    .meta({ example: ["notes:read", "notes:write"] }),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(365)
    .nullable()
    .default(DEFAULT_EXPIRES_IN_DAYS)
    .describe("Days until the token stops working, 1..365 (default 90); null for a token that never expires"),
  code: secondFactorCodeSchema.optional().describe("A TOTP or recovery code; required when the account has TOTP enabled"),
});

const tokenFields = {
  id: z.number().int().positive(),
  name: z.string(),
  scopes: z.array(scopeSchema),
  prefix: z.string().describe("The first 8 characters after `rhz_`, to recognise the token"),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable().describe("null: never expires"),
  last_used_at: z.iso.datetime().nullable().describe("Updated at most once a minute; null: never used"),
};

export const createdTokenSchema = z
  .object({ ...tokenFields, token: z.string().describe("`rhz_…`: shown in this answer only; send it as `Authorization: Bearer <token>`") })
  .meta({ id: "CreatedAccessToken" });

export const tokenListItemSchema = z
  .object({
    ...tokenFields,
    kind: z
      .enum(["personal", "connector", "clipper"])
      .describe("`personal` (made here), `connector` (granted to an agent through OAuth, for /mcp) or `clipper` (granted to the browser extension through OAuth, for /api)"),
    client_name: z.string().nullable().describe("The connector's or clipper's name; null for a personal token"),
  })
  .meta({ id: "AccessToken" });

export const tokenListSchema = z.object({ items: z.array(tokenListItemSchema) }).meta({ id: "AccessTokenList" });

export const tokenIdInput = z.object({
  id: z.coerce.number({ error: "Must be a positive integer id" }).int("Must be a positive integer id").positive("Must be a positive integer id").max(Number.MAX_SAFE_INTEGER),
});

export type CreateTokenInput = z.infer<typeof createTokenInput>;
export type CreatedToken = z.infer<typeof createdTokenSchema>;
export type TokenListItem = z.infer<typeof tokenListItemSchema>;
