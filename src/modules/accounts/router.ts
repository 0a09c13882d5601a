import { z } from "zod";
import { router, sessionProcedure } from "../../trpc/procedures";
import { changePassword } from "./change-password";
import { deleteAccount } from "./delete-account";
import { endLoginSession, endOtherLoginSessions, listLoginSessions } from "./login-sessions";
import * as s from "./schemas";

const tags = ["auth"];
// A person at a login session only: a program's token never changes the password, sees logins or deletes the account.
const sessionOnly = "Needs a login session: an access token gets 403.";

export const accountsRouter = router({
  changePassword: sessionProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/password",
        tags,
        summary: "Change the password; every other login session of the account ends",
        description: `The new password counts at once. \`code\` (a TOTP or recovery code) is required when TOTP is on. The current session, access tokens and connector grants stay. A wrong current password or code is a 401 and changes nothing; failures are throttled (429). ${sessionOnly}`,
      },
      successStatus: 204,
    })
    .input(s.changePasswordInput)
    .output(z.void())
    .mutation(({ ctx, input }) => changePassword({ ctx, input })),

  sessions: sessionProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/auth/sessions",
        tags,
        summary: "The account's login sessions, newest first",
        description: `Finished logins that have not expired or ended (a login waiting for its second factor is not one); \`current\` marks the one making this request. ${sessionOnly}`,
      },
    })
    .input(z.void())
    .output(s.loginSessionListSchema)
    .query(({ ctx }) => listLoginSessions({ ctx })),

  endSession: sessionProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/auth/sessions/{id}",
        tags,
        summary: "End a login session; its token stops working at once",
        description: `Another account's session, or one that does not exist, is a 404. Ending the current session logs this client out. ${sessionOnly}`,
      },
      successStatus: 204,
    })
    .input(s.loginSessionIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => endLoginSession({ ctx, input })),

  endOtherSessions: sessionProcedure
    .meta({
      openapi: { method: "POST", path: "/auth/sessions/end-others", tags, summary: "End every login session of the account but this one", description: sessionOnly },
      successStatus: 204,
    })
    .input(z.void())
    .output(z.void())
    .mutation(({ ctx }) => endOtherLoginSessions({ ctx })),

  deleteAccount: sessionProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/delete-account",
        tags,
        summary: "Delete the account and everything it owns",
        description: `Notes, versions, the trash, files, the graph, tasks, tokens and connector grants, share links, webhooks and their deliveries, and the vectors of search by meaning go at once (stored files and vectors no row reaches any more, by the next sweep at the latest); the username can be registered again. \`code\` (a TOTP or recovery code) is required when TOTP is on. A wrong password or code is a 401 and deletes nothing. ${sessionOnly}`,
      },
      successStatus: 204,
    })
    .input(s.deleteAccountInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteAccount({ ctx, input })),
});
