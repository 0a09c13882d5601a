import { z } from "zod";
import { eventTicketSchema } from "../events/schemas";
import { issueEventTicket } from "../events/tickets";
import { storageUsage } from "../files/storage-usage";
import { invalidateSession } from "./sessions";
import { login } from "./login";
import { registerUser, registrationOpen } from "./register";
import * as s from "./schemas";
import { disableTotp, enableTotp, setupTotp } from "./totp-enrolment";
import { verifyTotpLogin } from "./totp-verify";
import { accountUsage } from "./account-usage";
import { toUserRecord } from "./user-record";
import { pendingTotpProcedure, protectedProcedure, publicProcedure, router, sessionProcedure } from "../../trpc/procedures";

const tags = ["auth"];

export const authRouter = router({
  register: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/register",
        tags,
        protect: false,
        summary: "Create an account",
        description: "With REGISTRATION=closed, only the first account can be made: once one exists this is a 403 (see GET /api/auth/registration).",
      },
      successStatus: 201,
    })
    .input(s.registerInput)
    .output(s.userSchema)
    .mutation(({ ctx, input }) => registerUser({ ctx, input })),

  registration: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/auth/registration",
        tags,
        protect: false,
        summary: "Whether new accounts can be made here",
        description: "`open` is false when the server runs with REGISTRATION=closed and an account exists already; a page can then hide account creation.",
      },
    })
    .input(z.void())
    .output(s.registrationSchema)
    .query(({ ctx }) => registrationOpen(ctx)),

  login: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/login",
        tags,
        protect: false,
        summary: "Log in (OAuth 2.0 password form)",
        description:
          "Form-encoded `username` and `password` (and `totp_code` for accounts with TOTP). A TOTP account without a code gets `totp_required: true` and a 5-minute pending token for /api/auth/totp/verify. Repeated failures are throttled with 429 and Retry-After.",
        contentTypes: ["application/x-www-form-urlencoded"],
      },
    })
    .input(s.loginInput)
    .output(s.tokenSchema)
    .mutation(({ ctx, input }) => login({ ctx, input })),

  me: protectedProcedure
    .meta({ access: "any", openapi: { method: "GET", path: "/auth/me", tags, summary: "The current user" } })
    .input(z.void())
    .output(s.currentUserSchema)
    .query(async ({ ctx }) => {
      const [storage, usage] = await Promise.all([storageUsage(ctx.db, ctx.user.id), accountUsage(ctx.db, ctx.userId)]);
      return { ...toUserRecord(ctx.user), storage, usage };
    }),

  logout: sessionProcedure
    .meta({ openapi: { method: "POST", path: "/auth/logout", tags, summary: "Revoke this token" }, successStatus: 204 })
    .input(z.void())
    .output(z.void())
    .mutation(({ ctx }) => invalidateSession(ctx.db, ctx.session.id)),

  totpSetup: sessionProcedure
    .meta({ openapi: { method: "POST", path: "/auth/totp/setup", tags, summary: "Start TOTP enrolment (new secret)" } })
    .input(z.void())
    .output(s.totpSetupOutput)
    .mutation(({ ctx }) => setupTotp({ ctx })),

  totpEnable: sessionProcedure
    .meta({ openapi: { method: "POST", path: "/auth/totp/enable", tags, summary: "Confirm TOTP with a code; returns 10 recovery codes once" } })
    .input(s.codeInput)
    .output(s.recoveryCodesOutput)
    .mutation(({ ctx, input }) => enableTotp({ ctx, input })),

  totpVerify: pendingTotpProcedure
    .meta({ openapi: { method: "POST", path: "/auth/totp/verify", tags, summary: "Second login step: pending token + code → full token" } })
    .input(s.codeInput)
    .output(s.tokenSchema)
    .mutation(({ ctx, input }) => verifyTotpLogin({ ctx, input })),

  totpDisable: sessionProcedure
    .meta({ openapi: { method: "POST", path: "/auth/totp/disable", tags, summary: "Turn TOTP off (password + code)" }, successStatus: 204 })
    .input(s.totpDisableInput)
    .output(z.void())
    .mutation(({ ctx, input }) => disableTotp({ ctx, input })),

  ticket: sessionProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/ticket",
        tags,
        summary: "A single-use, 60-second ticket to open GET /api/events from a browser's EventSource",
        description:
          "`EventSource` cannot send an Authorization header: pass the ticket as `GET /api/events?ticket=<ticket>` instead. It works once, within 60 s, on that route only; an access token is never accepted in a URL.",
      },
      successStatus: 201,
    })
    .input(z.void())
    .output(eventTicketSchema)
    .mutation(({ ctx }) => issueEventTicket({ ctx })),
});
