// The platform's limit: a bare Bun.serve running plain SQL strings through @libsql/client — no
// framework, no ORM, no code from src/ — over the service's own database file and data design
// (excerpt and tags on the note row, trigger-kept counters for totals, the search entry written
// with the note). It checks the same SHA-256 bearer token, renews a session past half its life, and
// sends byte-identical JSON for the benchmarked routes: the best plain code could do, the figure
// the service's ratios are judged against.
import { createHash } from "node:crypto";
import path from "node:path";
import { createClient, type InStatement, type Row } from "@libsql/client";
import { decodeHTML } from "entities";
import { Lexer, type Token } from "marked";

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error("DATA_DIR must name the data directory holding rhizome.db");
// The service's connection settings: WAL (already in the file), a busy timeout, synchronous=FULL.
const client = createClient({ url: `file:${path.join(path.resolve(dataDir), "rhizome.db")}`, timeout: 5000 } as Parameters<typeof createClient>[0]);
await client.execute("PRAGMA synchronous = FULL");

const DAY_MS = 24 * 60 * 60 * 1000;
const SESSION_LIFETIME_MS = 30 * DAY_MS;
const RENEW_WHEN_LEFT_MS = 15 * DAY_MS;

const SESSION = "select s.user_id, s.expires_at, s.pending_totp from sessions s join users u on u.id = s.user_id where s.id = ?";
const LIST_COLUMNS = "n.id, n.title, n.tags, n.excerpt, n.source_platform, n.source_url, n.source_author, n.source_published_at, n.created_at, n.updated_at";
const LIST = `select ${LIST_COLUMNS} from notes n where n.user_id = ? order by n.updated_at desc, n.id desc limit ? offset ?`;
const LIST_TOTAL = "select total from note_counts where user_id = ?";
const TAG_PAGE = `select ${LIST_COLUMNS} from note_tags t join notes n on n.id = t.note_id
  where t.user_id = ? and t.tag = ? order by t.updated_at desc, t.note_id desc limit ? offset ?`;
const TAG_TOTAL = "select total from tag_counts where user_id = ? and tag = ?";
const NOTE = "select id, title, content, tags, source_platform, source_url, source_author, source_published_at, created_at, updated_at from notes where id = ? and user_id = ?";
const INSERT_NOTE = `insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)
  returning id, title, content, tags, source_platform, source_url, source_author, source_published_at, created_at, updated_at`;

const errorBody = (status: number, code: string, message: string) => Response.json({ code, message }, { status });
const unauthorized = () => errorBody(401, "UNAUTHORIZED", "Invalid or expired token");

/** Bearer token → user id: one joined read, a renewal write only past half the session's life. */
async function authenticate(request: Request): Promise<number | null> {
  const token = request.headers.get("authorization")?.match(/^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i)?.[1];
  if (!token) return null;
  const id = createHash("sha256").update(token).digest("hex");
  const [row] = (await client.execute({ sql: SESSION, args: [id] })).rows;
  const now = Date.now();
  if (!row || Number(row.pending_totp) !== 0 || now >= Number(row.expires_at)) return null;
  if (Number(row.expires_at) - now < RENEW_WHEN_LEFT_MS) {
    await client.execute({ sql: "update sessions set expires_at = ? where id = ?", args: [now + SESSION_LIFETIME_MS, id] });
  }
  return Number(row.user_id);
}

const iso = (value: unknown) => new Date(Number(value)).toISOString();

function source(row: Row) {
  if (row.source_platform === null) return null;
  return {
    platform: row.source_platform,
    url: row.source_url,
    author: row.source_author,
    published_at: row.source_published_at === null ? null : iso(row.source_published_at),
  };
}

const listItem = (row: Row) => ({
  id: Number(row.id),
  title: row.title,
  tags: JSON.parse(row.tags as string) as string[],
  excerpt: row.excerpt,
  source: source(row),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

const note = (row: Row) => ({
  id: Number(row.id),
  title: row.title,
  content: row.content,
  tags: JSON.parse(row.tags as string) as string[],
  source: source(row),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

/** A page and its total: two statements in parallel (no transaction; the counter is trigger-kept). */
async function page(statements: [InStatement, InStatement], pageNumber: number, size: number) {
  const [rows, totals] = await Promise.all(statements.map((statement) => client.execute(statement)));
  const total = Number(totals!.rows[0]?.total ?? 0);
  return Response.json({ items: rows!.rows.map(listItem), total, page: pageNumber, size, pages: Math.ceil(total / size) });
}

/** What a reader sees of Markdown, whitespace collapsed: the text both the excerpt and the search entry hold. */
function plainText(markdown: string): string {
  const parts: string[] = [];
  const collect = (tokens: Token[]) => {
    for (const token of tokens) {
      if (token.type === "html" || token.type === "image" || token.type === "space" || token.type === "hr") continue;
      if ("tokens" in token && token.tokens?.length) collect(token.tokens);
      else if (token.type === "list") collect(token.items);
      else if (token.type === "table") for (const cell of [...token.header, ...token.rows.flat()]) collect(cell.tokens);
      else if (token.type === "code" || token.type === "codespan") parts.push(token.text);
      else if ("text" in token && typeof token.text === "string") parts.push(decodeHTML(token.text));
    }
  };
  collect(Lexer.lex(markdown));
  return parts.join(" ").replace(/\s+/g, " ").trim();
}

// The index's word form for ASCII text (what the benchmark writes): lower-case letter and digit runs,
// each prefixed with the owner's 8 hex digits; tags become per-user hashed scope tokens.
const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
const owned = (owner: string, text: string) => words(text).map((word) => owner + word).join(" ");
// Adjacent words as one token each: a 64-bit hash of owner and both words as six ideographs.
const pairToken = (owner: string, first: string, second: string) => {
  const hash = Bun.hash.xxHash64(`${owner}\u0000${first}\u0000${second}`);
  const [low, high] = [Number(hash & 0xffffffffn), Number(hash >> 32n)];
  return String.fromCharCode(...[low & 0x7ff, (low >>> 11) & 0x7ff, low >>> 22, high & 0x7ff, (high >>> 11) & 0x7ff, high >>> 22].map((bits) => 0x4e00 + bits));
};
const pairs = (owner: string, list: string[]) => list.slice(1).map((word, at) => pairToken(owner, list[at]!, word)).join(" ");
const tagToken = (userId: number, tag: string) => `t${createHash("sha256").update(`${userId}\u0000${tag}`).digest("hex").slice(0, 24)}`;

/** The note, its search entry and the backlog row the insert trigger left, in one write batch (one transaction). */
async function createNote(userId: number, body: { title: string; content?: string; tags?: string[] }) {
  const content = body.content ?? "";
  const tags = body.tags ?? [];
  const text = plainText(content);
  const owner = userId.toString(16).padStart(8, "0");
  const now = Date.now();
  const [inserted] = await client.batch(
    [
      { sql: INSERT_NOTE, args: [userId, body.title, content, Array.from(text.slice(0, 400)).slice(0, 200).join(""), JSON.stringify(tags), now, now] },
      {
        sql: `insert into notes_fts (rowid, scope, title, tags, body, title_pairs, tags_pairs, body_pairs)
          values (last_insert_rowid(), ?, ?, ?, ?, ?, ?, ?)`,
        args: [
          [`u${owner}`, ...tags.map((tag) => tagToken(userId, tag))].join(" "),
          owned(owner, body.title),
          tags.map((tag) => owned(owner, tag)).join(" "),
          owned(owner, text),
          pairs(owner, words(body.title)),
          pairs(owner, tags.flatMap(words)),
          pairs(owner, words(text)),
        ],
      },
      { sql: "insert or replace into search_texts (note_id, body) values (last_insert_rowid(), ?)", args: [text] },
      { sql: "delete from search_backlog where note_id = last_insert_rowid()", args: [] },
    ],
    "write",
  );
  return Response.json(note(inserted!.rows[0]!), { status: 201 });
}

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  routes: {
    "/api/notes": {
      GET: async (request) => {
        const userId = await authenticate(request);
        if (userId === null) return unauthorized();
        const query = new URL(request.url).searchParams;
        const pageNumber = Number(query.get("page") ?? 1);
        const size = Number(query.get("size") ?? 20);
        const offset = (pageNumber - 1) * size;
        const tag = query.get("tag");
        return tag === null
          ? page([{ sql: LIST, args: [userId, size, offset] }, { sql: LIST_TOTAL, args: [userId] }], pageNumber, size)
          : page([{ sql: TAG_PAGE, args: [userId, tag, size, offset] }, { sql: TAG_TOTAL, args: [userId, tag] }], pageNumber, size);
      },
      POST: async (request) => {
        const userId = await authenticate(request);
        if (userId === null) return unauthorized();
        return createNote(userId, (await request.json()) as { title: string; content?: string; tags?: string[] });
      },
    },
    "/api/notes/:id": {
      GET: async (request) => {
        const userId = await authenticate(request);
        if (userId === null) return unauthorized();
        const id = Number(request.params.id);
        const [row] = (await client.execute({ sql: NOTE, args: [id, userId] })).rows;
        return row ? Response.json(note(row)) : errorBody(404, "NOT_FOUND", `Note ${id} not found`);
      },
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
