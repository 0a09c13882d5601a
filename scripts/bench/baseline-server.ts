// The platform's limit: a bare Bun.serve answering the benchmarked routes with the service's own
// token check and note functions (same drizzle queries, same libSQL client and settings), and no
// Elysia, REST adapter, tRPC or Zod in between.
import path from "node:path";
import { openNotesDatabase } from "../../src/db/client";
import { validateSessionToken } from "../../src/modules/auth/sessions";
import { NotFoundError } from "../../src/modules/errors";
import { createNote } from "../../src/modules/notes/create-note";
import { getNote } from "../../src/modules/notes/get-note";
import { listNotes } from "../../src/modules/notes/list-notes";

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error("DATA_DIR must name the data directory holding rhizome.db");
const { db } = await openNotesDatabase({ url: `file:${path.join(path.resolve(dataDir), "rhizome.db")}` });

type Handler = (request: Bun.BunRequest, ctx: { db: typeof db; userId: number }) => Promise<Response>;

const errorBody = (status: number, code: string, message: string) => Response.json({ code, message }, { status });

/** The service's check, minus the framework: bearer token → session + user, full sessions only. */
function authenticated(handler: Handler) {
  return async (request: Bun.BunRequest): Promise<Response> => {
    const token = request.headers.get("authorization")?.match(/^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i)?.[1];
    const validated = token ? await validateSessionToken(db, token) : null;
    if (!validated || validated.session.pendingTotp) return errorBody(401, "UNAUTHORIZED", "Invalid or expired token");
    try {
      return await handler(request, { db, userId: validated.user.id });
    } catch (error) {
      if (error instanceof NotFoundError) return errorBody(404, "NOT_FOUND", error.message);
      throw error;
    }
  };
}

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  routes: {
    "/api/notes": {
      GET: authenticated(async (request, ctx) => {
        const query = new URL(request.url).searchParams;
        const input = { page: Number(query.get("page") ?? 1), size: Number(query.get("size") ?? 20), tag: query.get("tag") ?? undefined };
        return Response.json(await listNotes({ ctx, input }));
      }),
      POST: authenticated(async (request, ctx) => {
        const body = (await request.json()) as { title: string; content?: string; tags?: string[] };
        const input = { title: body.title, content: body.content ?? "", tags: body.tags ?? [] };
        return Response.json(await createNote({ ctx, input }), { status: 201 });
      }),
    },
    "/api/notes/:id": {
      GET: authenticated(async (request, ctx) => Response.json(await getNote({ ctx, input: { id: Number(request.params.id) } }))),
    },
  },
  fetch: () => errorBody(404, "NOT_FOUND", "No such endpoint"),
});

// The parent waits for this one line before it sends any request.
console.log(JSON.stringify({ port: server.port }));

process.once("SIGTERM", async () => {
  await server.stop();
  process.exit(0);
});
