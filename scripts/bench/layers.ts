// `bun run scripts/bench/layers.ts`: where a read request's CPU time goes, in one process and
// without sockets. The framework layers are timed on stub procedures that return a precomputed
// result (so database noise cannot hide them); the work the service shares with the bare baseline
// (token check, queries, JSON) is timed on its own. CPU µs per call, the median of interleaved
// rounds, so other work on the machine disturbs the figures little.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client, Row } from "@libsql/client";
import { openNotesDatabase } from "../../src/db/client";
import { createHttpApp } from "../../src/http/app";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { createRestHandler } from "../../src/http/rest-adapter";
import { setLogLevel } from "../../src/log";
import { createSession, validateSessionToken } from "../../src/modules/auth/sessions";
import { createNote } from "../../src/modules/notes/create-note";
import { getNote } from "../../src/modules/notes/get-note";
import { listNotes } from "../../src/modules/notes/list-notes";
import * as schemas from "../../src/modules/notes/schemas";
import { updateNote } from "../../src/modules/notes/update-note";
import type { TrpcContext } from "../../src/trpc/context";
import { t } from "../../src/trpc/init";
import { publicProcedure } from "../../src/trpc/procedures";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { seedNotes } from "./seed-notes";
import { ChangeFeed } from "../../src/modules/events/change-feed";

const NOTES = 10_000;
const ROUNDS = 5;
const CALLS_PER_ROUND = 300;

type Stack = { name: string; call: () => Promise<unknown> };

setLogLevel("warn");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-layers-"));
try {
  await main();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function main() {
  const dbFile = path.join(dataDir, "rhizome.db");
  const notesDb = await openNotesDatabase({ url: `file:${dbFile}` });
  const [user] = (
    await notesDb.client.execute("insert into users (username, username_key, password_hash, created_at) values ('bench', 'bench', '-', 0) returning id")
  ).rows;
  const userId = Number(user![0]);
  await seedNotes({ dbFile, userId, count: NOTES, seed: 1 });
  const { token } = await createSession(notesDb.db, userId, { pendingTotp: false });
  const ctx = { db: notesDb.db, userId };
  const random = seededRandom(5);
  const noteId = () => 1 + Math.floor(random() * NOTES);
  const page = await listNotes({ ctx, input: { page: 1, size: 20 } });
  const note = await getNote({ ctx, input: { id: 1 } });

  // notesRouter.list and .get as they are declared, with the token check (authenticate) and the
  // query stubbed out.
  const stubAuthenticate = t.middleware(({ ctx: context, next }) => next({ ctx: { ...context, userId } }));
  const stubRouter = t.router({
    notes: t.router({
      list: publicProcedure
        .use(stubAuthenticate)
        .meta({ openapi: { method: "GET", path: "/notes" } })
        .input(schemas.listNotesInput)
        .output(schemas.pageEnvelope(schemas.noteListItemSchema, "NotePage"))
        .query(async () => page),
      get: publicProcedure
        .use(stubAuthenticate)
        .meta({ openapi: { method: "GET", path: "/notes/{id}" } })
        .input(schemas.noteIdInput)
        .output(schemas.noteSchema)
        .query(async () => note),
    }),
  });
  // The notes routes touch neither the secret box nor the import queue.
  const services = {
    db: notesDb.db,
    secretBox: { seal: async (text: string) => text, open: async (text: string) => text, keyedHash: async (text: string) => text },
    importQueue: { enqueueImport: async () => false, findImportJob: async () => null },
    graphQueue: { enqueueBuild: async () => false, findBuildJob: async () => null },
    changes: { publish: async () => {} },
    graphSettings: { extractor: "local" as const, llmConcurrency: 1, anthropic: {} },
  };
  const context = (request: Request, transport: TrpcContext["transport"]): TrpcContext => ({
    ...services,
    clientAddress: () => "127.0.0.1",
    authorization: request.headers.get("authorization"),
    transport,
  });
  const app = createHttpApp({ router: stubRouter, services, document: buildOpenApiDocument(stubRouter), checkHealth: async () => {}, events: new ChangeFeed({ db: notesDb.db, graphSettings: services.graphSettings }) });
  const rest = createRestHandler(stubRouter, context);
  const headers = { authorization: `Bearer ${token}` };
  // The REST adapter builds a caller per request; so does this.
  const caller = () => stubRouter.createCaller(context(new Request("http://127.0.0.1/", { headers }), "rest"));
  const framework = (url: () => string, result: unknown, procedure: () => Promise<unknown>): Stack[] => [
    { name: "JSON body only (what the baseline adds)", call: () => Response.json(result).text() },
    { name: "+ tRPC procedure: middleware, Zod in/out", call: async () => JSON.stringify(await procedure()) },
    { name: "+ REST adapter and trpc-to-openapi", call: async () => (await rest(new Request(url(), { headers }))).text() },
    { name: "+ Elysia (app.handle)", call: async () => (await app.handle(new Request(url(), { headers }))).text() },
  ];
  const listUrl = () => "http://127.0.0.1/api/notes?page=1&size=20";
  const getUrl = () => `http://127.0.0.1/api/notes/${noteId()}`;

  console.log(`CPU µs per call, median of ${ROUNDS} interleaved rounds of ${CALLS_PER_ROUND}; ${NOTES.toLocaleString("en-US")} notes\n`);
  const report = async (title: string, stacks: Stack[], cumulative: boolean) => {
    console.log(title);
    const results = await measure(stacks);
    printStacks(results, cumulative);
    return results;
  };
  const listLayers = await report("Framework, GET /api/notes?page=1&size=20 (stub procedure)", framework(listUrl, page, () => caller().notes.list({ page: 1, size: 20 })), true);
  const getLayers = await report("Framework, GET /api/notes/{id} (stub procedure)", framework(getUrl, note, () => caller().notes.get({ id: noteId() })), true);
  const raw = rawSql(notesDb.client, userId);
  const shared = await report(
    "Work the service and the baseline share: the service's functions, then the same through raw SQL strings",
    [
      { name: "validateSessionToken (SHA-256 + join)", call: () => validateSessionToken(ctx.db, token) },
      { name: "listNotes (page of 20 + total)", call: () => listNotes({ ctx, input: { page: 1, size: 20 } }) },
      { name: "getNote", call: () => getNote({ ctx, input: { id: noteId() } }) },
      { name: "libSQL execute('select 1')", call: () => notesDb.client.execute("select 1") },
      { name: "raw: session (SHA-256 + join)", call: () => raw.session(token) },
      { name: "raw: list (page of 20 + total)", call: () => raw.list() },
      { name: "raw: get", call: () => raw.get(noteId()) },
    ],
    false,
  );
  // The write paths, for the record: each is a read (an edit's) and one write batch. bench:api
  // measures a create against the baseline's; an edit has no baseline there.
  let edits = 0;
  await report(
    "Writes (no target): a note and its search entry in one write batch",
    [
      { name: "createNote", call: () => createNote({ ctx, input: { title: "Layers", content: note.content, tags: ["bench"] } }) },
      { name: "updateNote, title only", call: () => updateNote({ ctx, input: { id: noteId(), title: `Edited ${++edits}` } }) },
      { name: "updateNote, content and tags", call: () => updateNote({ ctx, input: { id: noteId(), content: `${note.content} ${++edits}`, tags: ["bench", `e${edits % 7}`] } }) },
    ],
    false,
  );
  notesDb.close();

  console.log("The service's read functions against raw SQL doing the same (target ≤ 2×):");
  for (const [name, index] of [["session check", 0], ["list", 1], ["get", 2]] as const) {
    const ratio = shared[index]!.micros / shared[index + 4]!.micros;
    console.log(`  ${name.padEnd(14)} ${ratio.toFixed(2)}× ${ratio <= 2 ? "PASS" : "FAIL"}`);
  }
  console.log();

  // Without the socket work (the same in both), so the real ratio sits a little closer to 1. The
  // service: its token check and query under the whole framework; the baseline: the raw SQL and JSON.
  const micros = (results: { micros: number }[], index: number) => results[index]!.micros;
  for (const [name, layers, query] of [["list", listLayers, 1], ["get", getLayers, 2]] as const) {
    const added = micros(layers, 3) - micros(layers, 0);
    const service = micros(shared, 0) + micros(shared, query) + micros(layers, 3);
    const baseline = micros(shared, 4) + micros(shared, query + 4) + micros(layers, 0);
    console.log(
      `${name}: service ${Math.round(service)} µs (framework ${Math.round(added)}), baseline ${Math.round(baseline)} µs; CPU-bound ratio ≈ ${(baseline / service).toFixed(2)}`,
    );
  }
}

/** The baseline server's statements and row mapping (scripts/bench/baseline-server.ts), without its HTTP. */
function rawSql(client: Client, userId: number) {
  const iso = (value: unknown) => new Date(Number(value)).toISOString();
  const source = (row: Row) =>
    row.source_platform === null
      ? null
      : { platform: row.source_platform, url: row.source_url, author: row.source_author, published_at: row.source_published_at === null ? null : iso(row.source_published_at) };
  const columns = "id, title, tags, excerpt, source_platform, source_url, source_author, source_published_at, created_at, updated_at";
  return {
    async session(token: string) {
      const id = createHash("sha256").update(token).digest("hex");
      const [row] = (await client.execute({ sql: "select s.user_id, s.expires_at, s.pending_totp, u.username from sessions s join users u on u.id = s.user_id where s.id = ?", args: [id] })).rows;
      return row;
    },
    async list() {
      const [rows, totals] = await Promise.all([
        client.execute({ sql: `select ${columns} from notes where user_id = ? order by updated_at desc, id desc limit ? offset ?`, args: [userId, 20, 0] }),
        client.execute({ sql: "select total from note_counts where user_id = ?", args: [userId] }),
      ]);
      const items = rows.rows.map((row) => ({
        id: Number(row.id), title: row.title, tags: JSON.parse(row.tags as string) as string[], excerpt: row.excerpt,
        source: source(row), created_at: iso(row.created_at), updated_at: iso(row.updated_at),
      }));
      return { items, total: Number(totals.rows[0]!.total) };
    },
    async get(id: number) {
      const [row] = (await client.execute({ sql: `select ${columns}, content from notes where id = ? and user_id = ?`, args: [id, userId] })).rows;
      return { id: Number(row!.id), title: row!.title, content: row!.content, tags: JSON.parse(row!.tags as string) as string[], source: source(row!), created_at: iso(row!.created_at), updated_at: iso(row!.updated_at) };
    },
  };
}

/** Runs every stack once per round, in turn, so a burst of outside load hits them all alike. */
async function measure(stacks: Stack[]): Promise<{ name: string; micros: number }[]> {
  for (const stack of stacks) for (let call = 0; call < CALLS_PER_ROUND; call++) await stack.call();
  const samples = stacks.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, stack] of stacks.entries()) {
      const before = process.cpuUsage();
      for (let call = 0; call < CALLS_PER_ROUND; call++) await stack.call();
      const used = process.cpuUsage(before);
      samples[index]!.push((used.user + used.system) / CALLS_PER_ROUND);
    }
  }
  return stacks.map((stack, index) => ({ name: stack.name, micros: samples[index]!.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]! }));
}

function printStacks(results: { name: string; micros: number }[], cumulative: boolean) {
  results.forEach((result, index) => {
    const added = cumulative && index > 0 ? `  (+${Math.round(result.micros - results[index - 1]!.micros)})` : "";
    console.log(`  ${result.name.padEnd(44)} ${String(Math.round(result.micros)).padStart(6)}${added}`);
  });
  console.log();
}
