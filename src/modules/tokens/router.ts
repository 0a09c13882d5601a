import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/procedures";
import { createAccessToken, listAccessTokens, revokeAccessToken } from "./manage-tokens";
import * as s from "./schemas";

const tags = ["auth"];
// Only a person at a login session manages tokens: a program's token never mints or lists credentials.
const access = "session";

export const tokensRouter = router({
  create: protectedProcedure
    .meta({
      access,
      openapi: {
        method: "POST",
        path: "/auth/tokens",
        tags,
        summary: "Create an access token for a script or agent (shown once)",
        description:
          "`scopes` say what the token may do; `expires_in_days` 1..365 (default 90) or null for none. Accounts with TOTP confirm with `code`. At most 100 live tokens per account (409). Needs a login session: an access token gets 403.",
      },
      successStatus: 201,
    })
    .input(s.createTokenInput)
    .output(s.createdTokenSchema)
    .mutation(({ ctx, input }) => createAccessToken({ ctx, input })),

  list: protectedProcedure
    .meta({ access, openapi: { method: "GET", path: "/auth/tokens", tags, summary: "Your live access tokens and connector grants (never the secrets)" } })
    .input(z.void())
    .output(s.tokenListSchema)
    .query(({ ctx }) => listAccessTokens({ ctx })),

  revoke: protectedProcedure
    .meta({ access, openapi: { method: "DELETE", path: "/auth/tokens/{id}", tags, summary: "Revoke an access token; it stops working at once" }, successStatus: 204 })
    .input(s.tokenIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => revokeAccessToken({ ctx, input })),
});
