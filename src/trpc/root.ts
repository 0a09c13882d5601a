import { accountsRouter } from "../modules/accounts/router";
import { askRouter } from "../modules/ask/router";
import { authRouter } from "../modules/auth/router";
import { filesRouter } from "../modules/files/router";
import { graphRouter } from "../modules/graph/router";
import { importsRouter } from "../modules/imports/router";
import { notesRouter } from "../modules/notes/router";
import { tokensRouter } from "../modules/tokens/router";
import { historyRouter } from "../modules/history/router";
import { tagsRouter } from "../modules/tags/router";
import { sharesRouter } from "../modules/shares/router";
import { webhooksRouter } from "../modules/webhooks/router";
import { semanticRouter } from "../modules/semantic/router";
import { feedsRouter } from "../modules/feeds/router";
import { router } from "./procedures";

export const appRouter = router({
  auth: authRouter,
  accounts: accountsRouter,
  notes: notesRouter,
  tasks: importsRouter,
  graph: graphRouter,
  files: filesRouter,
  ask: askRouter,
  tokens: tokensRouter,
  history: historyRouter,
  tags: tagsRouter,
  shares: sharesRouter,
  webhooks: webhooksRouter,
  search: semanticRouter,
  feeds: feedsRouter,
});

/** Imported by typed clients: `createTRPCClient<AppRouter>(...)`. */
export type AppRouter = typeof appRouter;
