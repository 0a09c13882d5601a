import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { AnyRouter } from "@trpc/server";
import { formatBytes } from "./error-response";
import { bodyLimitOf, DEFAULT_BODY_LIMIT, proceduresWithMeta, REST_PREFIX } from "./procedure-meta";
import { viewerOpenApiPaths } from "../viewer/route";
import { oauthOpenApiPaths } from "../oauth/openapi-paths";
import { extensionOpenApiPaths } from "./extension-downloads";
import { SCOPES, type Access } from "../modules/tokens/scopes";
import { FILE_MIME_TYPES } from "../modules/files/file-types";
import { DOCUMENT_MEDIA_TYPES } from "../modules/documents/document-kinds";

const ERROR_STATUSES: Record<number, string> = {
  400: "Invalid input (body, query or path); `issues` lists each problem",
  401: "Missing, invalid or expired bearer token",
  403: "The access token lacks this operation's scope (or the operation needs a login session)",
  404: "No such resource (or it belongs to another user)",
  405: "Method not allowed on this path",
  409: "Conflict with the current state",
  413: `Request body over the limit (${formatBytes(DEFAULT_BODY_LIMIT)} unless the operation says otherwise)`,
  415: "Unsupported content type",
  429: "Too many attempts; see Retry-After",
  500: "Unexpected error (no details are returned)",
  503: "A backing service is unavailable; retry later",
};

/**
 * The committed openapi/openapi.json: trpc-to-openapi's document from the procedures' meta, with
 * what it cannot express added here — paths written in full (`/api/notes`, as users read them),
 * real success statuses, the ZIP download, the contract's single error body, `security: []` on
 * public operations, the plain routes, and the OAuth2 password flow of Swagger UI's Authorize button.
 */
export function buildOpenApiDocument(router: AnyRouter): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Rhizome API",
    version: "1.0.0",
    description:
      "Notes, imports and a knowledge graph. Every /api operation is also available over tRPC at /trpc. Errors share one body: `{code, message, issues?}`.",
    // Paths carry their own prefix, so the server is this origin's root (Swagger UI's "Try it out" too).
    baseUrl: "/",
    securitySchemes: {
      OAuth2PasswordBearer: {
        type: "oauth2",
        description: "A login session: log in with username and password; the token is sent as `Authorization: Bearer <token>`. A session may call every operation.",
        flows: { password: { tokenUrl: `${REST_PREFIX}/auth/login`, scopes: {} } },
      },
      AccessToken: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "rhz_…",
        description: [
          "An access token from POST /api/auth/tokens (for scripts and agents), sent as `Authorization: Bearer rhz_…`. An operation's security requirement lists the scope it needs; a token without it gets 403 with `WWW-Authenticate: Bearer error=\"insufficient_scope\"`. Operations listing only OAuth2PasswordBearer need a login session.",
          "",
          ...Object.entries(SCOPES).map(([scope, allows]) => `- \`${scope}\`: ${allows}`),
        ].join("\n"),
      },
    },
  });
  document.paths = {
    ...Object.fromEntries(Object.entries(document.paths ?? {}).map(([path, item]) => [REST_PREFIX + path, item])),
    ...PLAIN_ROUTES,
  };
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, Error: errorSchema as never },
    responses: Object.fromEntries(Object.entries(ERROR_STATUSES).map(([status, description]) => [`Error${status}`, errorResponse(description)])),
  };
  for (const { meta } of proceduresWithMeta(router)) {
    const openapi = meta.openapi!;
    const operation = document.paths[REST_PREFIX + openapi.path]?.[openapi.method.toLowerCase() as "get"];
    if (!operation?.responses) continue;
    const success = operation.responses["200"];
    delete operation.responses["200"];
    const status = String(meta.successStatus ?? 200);
    if (meta.download) {
      operation.responses[status] = {
        description: `The download (${meta.download})`,
        content: { [meta.download]: { schema: { type: "string", format: "binary" } } },
        headers: { "Content-Disposition": { schema: { type: "string" }, description: `attachment; filename="${meta.downloadFilename ?? "notes-YYYYMMDD.zip"}"` } },
      };
    } else if (status === "204") {
      operation.responses[status] = { description: "No content" };
    } else {
      operation.responses[status] = { ...success, description: status === "201" ? "Created" : status === "202" ? "Accepted" : "OK" };
      if (meta.alsoOk) operation.responses["200"] = { ...success, description: meta.alsoOk };
    }
    for (const code of Object.keys(operation.responses)) if (Number(code) >= 400) delete operation.responses[code];
    // trpc-to-openapi leaves `security` out on public operations; the document says "no token" outright.
    operation.security = openapi.protect === false ? [] : securityFor(meta.access ?? "session");
    for (const code of errorStatusesFor(openapi.method, operation.security.length > 0, openapi.path)) {
      operation.responses[String(code)] = { $ref: `#/components/responses/Error${code}` };
    }
    const requestBody = operation.requestBody as { content?: Record<string, unknown> } | undefined;
    if (meta.rawBody && requestBody?.content) {
      for (const type of meta.rawBody.contentTypes) requestBody.content[type] = { schema: { type: "string", description: `The document itself (the \`${meta.rawBody.field}\` field of the JSON form)` } };
    }
    const bodyLimit = bodyLimitOf(meta);
    if (operation.responses["413"] && bodyLimit !== DEFAULT_BODY_LIMIT) {
      operation.responses["413"] = errorResponse(`Request body over this operation's ${formatBytes(bodyLimit)} limit`);
    }
  }
  addAskStream(document);
  removeUnusedComponents(document);
  return document;
}

/** POST /api/ask also answers `Accept: text/event-stream` (a plain route beside the procedure): its second media type. */
function addAskStream(document: OpenAPIObject): void {
  const ok = document.paths?.[`${REST_PREFIX}/ask`]?.post?.responses?.["200"] as { content?: Record<string, unknown> } | undefined;
  if (!ok?.content) return;
  ok.content["text/event-stream"] = {
    schema: { type: "string", description: "Events: `passages` ({passages, concepts}), `delta` ({text}), `citation` ({n, note_id, title, start, end, quote}), `done` (the whole AskResult)" },
    example:
      'event: passages\ndata: {"passages":[...],"concepts":[...]}\n\nevent: delta\ndata: {"text":"Anchoring shifts estimates"}\n\nevent: citation\ndata: {"n":1,"note_id":3,"title":"Thinking, Fast and Slow","start":120,"end":188,"quote":"..."}\n\nevent: delta\ndata: {"text":" [1]"}\n\nevent: done\ndata: {"question":"...","answer":"Anchoring shifts estimates [1]",...}\n\n',
  };
}

/** GET /api/events is a plain route (a stream, not a procedure), so it is written here by hand. */
const eventStreamOperation = {
  operationId: "events-stream",
  summary: "Live progress of your graph builds and import tasks, as server-sent events",
  description: [
    "A `text/event-stream` for the caller's own account, open until the client closes it. Events:",
    "",
    "- `graph`: the build status object, exactly as GET /api/knowledge-graph/status returns it; sent once right after connecting, then whenever it changes.",
    "- `task`: a task record, exactly as GET /api/tasks/{id} returns it, whenever that task changes (created, running, progress, completed or failed).",
    "",
    "Every event has an increasing `id:`. Each kind is coalesced to at most 4 a second: an event carries the newest state when it is sent, so intermediate progress may be skipped but the last state (`completed`, `failed`) always arrives. For tasks, each slot sends the newest state of every task that changed since the previous one. A `: keep-alive` comment line comes every 15 s. Changes made by workers in other processes arrive too.",
    "",
    "Authenticate with `Authorization: Bearer <token>`, or, from a browser's `EventSource` (which cannot send headers), with `?ticket=` from POST /api/auth/ticket (single use, 60 s). An access token in the URL (`?token=`, `?access_token=`, or as the ticket) is refused with 401. The stream lives only as long as the credential that opened it: once that login session is logged out (for a ticket: the session that issued it) or that token revoked or expired, the server ends it at the next keep-alive, within 20 s. After a reconnect, read GET /api/tasks for what changed while disconnected; the stream starts again with the current graph status.",
  ].join("\n"),
  tags: ["events"],
  security: securityFor("any"),
  parameters: [
    {
      name: "ticket",
      in: "query",
      required: false,
      description: "A ticket from POST /api/auth/ticket, instead of the Authorization header (for EventSource)",
      schema: { type: "string" },
    },
  ],
  responses: {
    "200": {
      description: "The event stream",
      content: {
        "text/event-stream": {
          schema: { type: "string" },
          example: 'id: 1\nevent: graph\ndata: {"status":"building","progress":40,...}\n\nid: 2\nevent: task\ndata: {"id":5,"status":"completed","progress":100,...}\n\n: keep-alive\n\n',
        },
      },
    },
    ...Object.fromEntries([401, 405, 500, 503].map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }])),
  },
};

/** An upload past the user's uploads waiting for their tasks (CONTRACT "Transcripts"). */
const pendingUploadsRefused = {
  ...errorResponse(
    "The user's uploads waiting for their tasks (recordings, archives and documents) would pass `UPLOADS_PENDING_MAX_MB` (1 GiB by default), judged by `Content-Length` or as the body streams; nothing of the upload is kept. Try again after `Retry-After` seconds, once some of those tasks have finished.",
  ),
  headers: { "Retry-After": { description: "Seconds to wait before uploading again", schema: { type: "integer", minimum: 1 } } },
};

/** POST /api/tasks/archive takes a raw ZIP (not JSON), so it is a plain route written here by hand. */
const archiveUploadOperation = {
  operationId: "tasks-archive",
  summary: "Import an archive of notes (our export or a Markdown folder), as a background task",
  description: [
    "The body is the ZIP itself (`Content-Type: application/zip`, at most 256 MiB), streamed to disk. Answers 201 with a task (`platform: \"archive\"`) that a worker imports; poll GET /api/tasks/{id}: `progress` follows the entries read, and `counts` / `failures` say what happened to each.",
    "",
    "- `format=auto` (default) recognises this service's own export (every `.md` at the root starts with front matter holding an integer `id`, a `title` and a `created_at`) and otherwise reads a Markdown folder (Obsidian, Logseq, Joplin, Bear, Memos).",
    "- A Markdown file's title comes from front matter `title`, else the first `# heading`, else the file name; tags from front matter `tags` (list or comma/space separated) plus inline `#tags` (`#area/topic` kept); `created`/`created_at`/`date` set `created_at`; `[[wikilinks]]` and `![[embeds]]` stay as written. Other files and dot-files are counted `skipped`.",
    "- Re-importing finds each note by its source (the archive path, or our export's note id) and never duplicates it: an unchanged source is `unchanged`, a changed one updates a note not edited here since (`updated`) and leaves an edited one alone (`skipped`, the reason in `failures`). The owner's own export is matched by note id.",
    "- Limits: 1 GiB uncompressed, 50,000 entries, 10 MiB per Markdown file, no entry over 1 MiB expanding more than 100 times; a breach fails the task with the reason. Absolute names and names that climb out (`..`) are refused per entry; GBK/GB18030 names are decoded.",
    "- A user's uploads waiting for their tasks (recordings and archives together) may hold `UPLOADS_PENDING_MAX_MB` (1 GiB by default); an upload that would pass it is a 429 with `Retry-After`, and nothing of it is kept. An upload stops counting once its task has ended.",
  ].join("\n"),
  tags: ["imports"],
  security: securityFor("imports"),
  parameters: [
    {
      name: "format",
      in: "query",
      required: false,
      description: "How to read the archive: `auto` (default), `rhizome` (this service's export) or `markdown`",
      schema: { type: "string", enum: ["auto", "rhizome", "markdown"], default: "auto" },
    },
  ],
  requestBody: {
    required: true,
    content: { "application/zip": { schema: { type: "string", format: "binary" } } },
  },
  responses: {
    "201": { description: "Created", content: { "application/json": { schema: { $ref: "#/components/schemas/ImportTask" } } } },
    ...Object.fromEntries([400, 401, 403, 405, 415, 500, 503].map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }])),
    "413": errorResponse("Request body over this operation's 256 MiB limit"),
    "429": pendingUploadsRefused,
  },
};

/** POST /api/tasks/audio takes a raw recording (not JSON), so it is a plain route written here by hand. */
const audioUploadOperation = {
  operationId: "tasks-audio",
  summary: "Transcribe a recording into a note, as a background task",
  description: [
    "The body is the recording itself (`Content-Type: audio/…` or `video/mp4`, at most 256 MiB), streamed to disk. Answers 201 with a task (`platform: \"audio\"`); its note is the transcript (`## Transcript`, paragraphs starting with `[mm:ss]`), titled `title` or the time of upload. `progress` and `message` follow the pieces (`Transcribing piece 3 of 12`).",
    "",
    "- Needs speech-to-text on the server (`STT_BASE_URL`); without it the answer is 503.",
    "- Long recordings are cut into pieces of `STT_CHUNK_SECONDS` (and under `STT_MAX_UPLOAD_MB`) without re-encoding, and transcribed up to `STT_MAX_MINUTES`; the same recording uploaded again reuses its transcript. A recording that cannot be transcribed (a damaged or hostile file among them) fails the task with the reason.",
    "- A user's uploads waiting for their tasks (recordings and archives together) may hold `UPLOADS_PENDING_MAX_MB` (1 GiB by default); an upload that would pass it is a 429 with `Retry-After`, and nothing of it is kept. An upload stops counting once its task has ended.",
  ].join("\n"),
  tags: ["imports"],
  security: securityFor("imports"),
  parameters: [{ name: "title", in: "query", required: false, description: "The note's title (default: the time of upload)", schema: { type: "string", maxLength: 500 } }],
  requestBody: {
    required: true,
    content: { "audio/*": { schema: { type: "string", format: "binary" } }, "video/mp4": { schema: { type: "string", format: "binary" } } },
  },
  responses: {
    "201": { description: "Created", content: { "application/json": { schema: { $ref: "#/components/schemas/ImportTask" } } } },
    ...Object.fromEntries([400, 401, 403, 405, 415, 500, 503].map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }])),
    "413": errorResponse("Request body over this operation's 256 MiB limit"),
    "429": pendingUploadsRefused,
  },
};

/** POST /api/tasks/document takes a raw document (not JSON), so it is a plain route written here by hand. */
const documentUploadOperation = {
  operationId: "tasks-document",
  summary: "Make a document (PDF, EPUB, DOCX, Markdown, text, HTML) a note, as a background task",
  description: [
    "The body is the document itself, with its own `Content-Type`, at most `DOCUMENT_MAX_MB` MiB (100 by default), streamed to disk. The bytes must be what the type says — a PDF starts with `%PDF-`, an EPUB is a ZIP holding `META-INF/container.xml`, a DOCX a ZIP holding `word/document.xml`, text is UTF-8 — else the answer is 415 and nothing is kept. Answers 201 with a task (`platform: \"document\"`) that a worker reads; its note ends with a link to the original, kept as a file of the note (`[original](/api/files/{id})`, counted in the user's storage).",
    "",
    "- Title: `title`, else the document's own (PDF info or XMP title, EPUB `dc:title`, DOCX core title, an HTML page's title, a Markdown document's first heading), else `filename`, else the time of upload.",
    "- PDF: each page begins with a line `[p. N]` (N the page's label when the PDF has labels, else its number), then its text in reading order as paragraphs (a word hyphenated at a line's end whole again, Chinese lines joined without a space), running headers and footers dropped. A page without text keeps its largest picture as a file of the note, on the paragraph after its marker (`![Page N](/api/files/{id})`), for OCR to read in place; at most 50 pictures a note.",
    "- EPUB: its chapters in reading order, each a `## <chapter title>` section; its pictures kept as files. DOCX: headings, lists, tables (pipe tables; the first row is the header when Word marks none), bold, italic and links; its pictures kept as files. Markdown, text and HTML: as pasted content is imported (`POST /api/tasks` with `content`), their first 10 MiB.",
    "- A note holds at most 1 MiB: a longer document keeps its beginning, cut at a paragraph, with a line saying where it stops, and the task's `message` says so.",
    "- A web import (`POST /api/tasks` with a `url`) whose link answers `application/pdf` is read the same way, under the same `DOCUMENT_MAX_MB`.",
    "- A user's uploads waiting for their tasks (recordings, archives and documents together) may hold `UPLOADS_PENDING_MAX_MB` (1 GiB by default); an upload that would pass it is a 429 with `Retry-After`, and nothing of it is kept.",
  ].join("\n"),
  tags: ["imports"],
  security: securityFor("imports"),
  parameters: [
    { name: "title", in: "query", required: false, description: "The note's title (default: the document's own, else `filename`, else the time of upload)", schema: { type: "string", maxLength: 500 } },
    { name: "filename", in: "query", required: false, description: "The document's file name, the title when neither `title` nor the document gives one", schema: { type: "string", maxLength: 255 } },
  ],
  requestBody: {
    required: true,
    content: Object.fromEntries(Object.keys(DOCUMENT_MEDIA_TYPES).map((type) => [type, { schema: { type: "string", format: "binary" } }])),
  },
  responses: {
    "201": { description: "Created", content: { "application/json": { schema: { $ref: "#/components/schemas/ImportTask" } } } },
    ...Object.fromEntries([400, 401, 403, 405, 415, 500, 503].map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }])),
    "413": errorResponse("Request body over `DOCUMENT_MAX_MB` (100 MiB by default)"),
    "429": pendingUploadsRefused,
  },
};

const fileSchema = {
  type: "object",
  required: ["id", "url", "mime", "size", "sha256", "created_at"],
  properties: {
    id: { type: "integer", minimum: 1 },
    url: { type: "string", description: "Where the bytes are read; notes refer to the file as `![alt](/api/files/{id})`", example: "/api/files/7" },
    mime: { type: "string", enum: [...FILE_MIME_TYPES], description: "Pictures are typed from their bytes; the other types are originals of imported documents (POST /api/tasks/document)" },
    size: { type: "integer", minimum: 0, description: "Bytes" },
    sha256: { type: "string", pattern: "^[0-9a-f]{64}$" },
    created_at: { type: "string", format: "date-time" },
  },
};

/** POST /api/files takes a raw image (not JSON), so it is a plain route written here by hand. */
const fileUploadOperation = {
  operationId: "files-upload",
  summary: "Store an image",
  description: [
    "The body is the image itself (at most 10 MiB), streamed to disk. Its type comes from its bytes — PNG, JPEG, GIF, WebP or AVIF; anything else, SVG included, is a 415 whatever the `Content-Type` says.",
    "",
    "The same picture (by SHA-256) stored again by the same user is the same file, answered with the same record. Each user's files together may hold `FILES_MAX_BYTES_PER_USER` (1 GiB by default); an upload past it is a 413 naming the cap. `GET /api/auth/me` shows `storage: {files, bytes}`.",
  ].join("\n"),
  tags: ["files"],
  security: securityFor("notes:write"),
  requestBody: {
    required: true,
    content: { "application/octet-stream": { schema: { type: "string", format: "binary" } }, "image/*": { schema: { type: "string", format: "binary" } } },
  },
  responses: {
    "201": { description: "Stored", content: { "application/json": { schema: fileSchema } } },
    ...Object.fromEntries([400, 401, 403, 405, 415, 500, 503].map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }])),
    "413": errorResponse("Body over this operation's 10 MiB limit, or the user's storage quota would be passed"),
  },
};

/** GET /api/files/{id} answers with bytes, so it is a plain route written here by hand. */
const fileReadOperation = {
  operationId: "files-read",
  summary: "Read a stored file (an image, or a document's original)",
  description:
    "The bytes with `Content-Type`, `Content-Length`, `ETag` (the SHA-256, quoted), `Cache-Control: private, max-age=31536000, immutable` and `X-Content-Type-Options: nosniff`. A picture is sent to be shown; a document's original (PDF, EPUB, DOCX, Markdown, text, HTML) comes with `Content-Disposition: attachment` and `Content-Security-Policy: sandbox`, to be downloaded, never shown in the page. `If-None-Match` with the ETag answers 304. Another user's file is a 404. Clients (the /graph viewer too) fetch with the bearer header and show the result as a blob URL. The file's JSON record is the tRPC query `files.get`.",
  tags: ["files"],
  security: securityFor("notes:read"),
  parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
  responses: {
    "200": {
      description: "The file's bytes",
      headers: {
        ETag: { description: "The SHA-256 of the bytes, quoted", schema: { type: "string" } },
        "Cache-Control": { schema: { type: "string", example: "private, max-age=31536000, immutable" } },
        "Content-Disposition": { description: "For a document's original only: `attachment; filename=\"file-<id>.<ext>\"`", schema: { type: "string" } },
      },
      content: Object.fromEntries(FILE_MIME_TYPES.map((mime) => [mime, { schema: { type: "string", format: "binary" } }])),
    },
    "304": { description: "Not modified: the client's copy (If-None-Match) is current" },
    ...Object.fromEntries([400, 401, 403, 404, 405, 500, 503].map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }])),
  },
};

/**
 * Who may call an operation: a login session always (unless public), and an access token holding
 * the operation's scope (any token for `any`, none for `session`).
 */
export function securityFor(access: Access): { [scheme: string]: string[] }[] {
  if (access === "session") return [{ OAuth2PasswordBearer: [] }];
  return [{ OAuth2PasswordBearer: [] }, { AccessToken: access === "any" ? [] : [access] }];
}

/** POST /mcp speaks JSON-RPC (the Model Context Protocol), not REST: documented here so the document lists every route. */
const mcpOperation = {
  operationId: "mcp",
  summary: "Model Context Protocol endpoint for agents (Streamable HTTP, stateless, JSON answers)",
  description: [
    "JSON-RPC 2.0 messages of the Model Context Protocol (revisions 2025-06-18 and 2025-11-25). The tools are this API's operations (search_notes, get_note, create_note, ask, import, build_graph, …, and ChatGPT's search/fetch), listed and callable as the access token's scopes allow; a caller's mistake is a tool result with `isError: true`. Resources: `rhizome://notes/{id}`.",
    "",
    "Takes an access token (`rhz_…`), never a login session's token (401). A browser `Origin` other than the service's own or one in MCP_ALLOWED_ORIGINS is a 403. GET and DELETE are 405 (no sessions, no server-sent stream). An unsupported `MCP-Protocol-Version` is a 400; bodies over 2 MiB a 413.",
  ].join("\n"),
  tags: ["mcp"],
  security: [{ AccessToken: [] }],
  requestBody: { required: true, content: { "application/json": { schema: { type: "object", description: "A JSON-RPC request, notification or batch" } } } },
  responses: {
    "200": { description: "The JSON-RPC response", content: { "application/json": { schema: { type: "object" } } } },
    "202": { description: "Accepted (the body held only notifications or responses)" },
    ...Object.fromEntries([400, 401, 403, 405, 413, 500].map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }])),
  },
};

/** A share link's public page, Markdown and images: HTML and bytes, so written here by hand. */
const shareNotFound = { description: "An unknown, expired or revoked link, or a note in the trash: the same page for all", content: { "text/html": { schema: { type: "string" } } } };
const sharePageOperation = {
  operationId: "shares-page",
  summary: "A shared note as a public, read-only page",
  description:
    "The note as it is now: its title and its Markdown rendered and sanitised (no script, event handler, `javascript:` link, form, frame, object or embed), stored images served under the link. `Content-Security-Policy` allows no script; `X-Robots-Tag: noindex`; `Cache-Control: no-store`. `/s/{token}.md` answers the Markdown (`text/markdown`), `/s/{token}/files/{file_id}` a stored image the note shows. Every request under `/s/` counts toward a limit per client address (a burst of 300, then 5 a second): past it, a 429 with `Retry-After`.",
  tags: ["shares"],
  security: [],
  parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" }, description: "The link's token, optionally with `.md`" }],
  responses: {
    "200": { description: "The page", content: { "text/html": { schema: { type: "string" } }, "text/markdown": { schema: { type: "string" } } } },
    "404": shareNotFound,
    "405": { $ref: "#/components/responses/Error405" },
    "429": { $ref: "#/components/responses/Error429" },
  },
};
const shareFileOperation = {
  operationId: "shares-file",
  summary: "A stored file shown or linked by a shared note",
  tags: ["shares"],
  security: [],
  parameters: [
    { name: "token", in: "path", required: true, schema: { type: "string" } },
    { name: "file_id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
  ],
  responses: {
    "200": { description: "The file (a document's original as an attachment)", content: Object.fromEntries(FILE_MIME_TYPES.map((mime) => [mime, { schema: { type: "string", format: "binary" } }])) },
    "404": shareNotFound,
    "405": { $ref: "#/components/responses/Error405" },
    "429": { $ref: "#/components/responses/Error429" },
  },
};

/** Routes outside the procedures, written in full. */
const PLAIN_ROUTES: NonNullable<OpenAPIObject["paths"]> = {
  "/healthz": {
    get: {
      operationId: "healthz",
      summary: "Readiness: the server, the notes database and the queue answer",
      tags: ["health"],
      security: [],
      responses: {
        "200": { description: "Ready", content: { "application/json": { schema: healthSchema("ok") } } },
        "503": { description: "A backing store does not answer", content: { "application/json": { schema: healthSchema("unavailable") } } },
      },
    },
  },
  "/api/events": { get: eventStreamOperation as never },
  ...(viewerOpenApiPaths as NonNullable<OpenAPIObject["paths"]>),
  "/api/tasks/archive": { post: archiveUploadOperation as never },
  "/api/tasks/audio": { post: audioUploadOperation as never },
  "/api/tasks/document": { post: documentUploadOperation as never },
  "/api/files": { post: fileUploadOperation as never },
  "/api/files/{id}": { get: fileReadOperation as never },
  "/mcp": { post: mcpOperation as never },
  "/s/{token}": { get: sharePageOperation as never },
  "/s/{token}/files/{file_id}": { get: shareFileOperation as never },
  ...(oauthOpenApiPaths as NonNullable<OpenAPIObject["paths"]>),
  ...(extensionOpenApiPaths as NonNullable<OpenAPIObject["paths"]>),
};

function healthSchema(status: string) {
  return { type: "object", required: ["status"], properties: { status: { type: "string", enum: [status] } } } as const;
}

/**
 * Drops components nothing refers to: trpc-to-openapi's per-code error schemas, which the
 * contract's single error body replaces, and error responses no operation can give.
 */
function removeUnusedComponents(document: OpenAPIObject): void {
  const components = document.components as Record<string, Record<string, unknown> | undefined>;
  for (;;) {
    const used = new Set(JSON.stringify(document).match(/"#\/components\/[^"]+"/g));
    let removed = false;
    for (const kind of ["schemas", "responses"]) {
      for (const name of Object.keys(components[kind] ?? {})) {
        if (!used.has(JSON.stringify(`#/components/${kind}/${name}`))) {
          delete components[kind]![name];
          removed = true;
        }
      }
    }
    if (!removed) return;
  }
}

// Operations whose success depends on current state, and so can answer 409.
const CONFLICT_PATHS = new Set(["/auth/register", "/auth/totp/setup", "/auth/totp/enable", "/auth/totp/disable", "/knowledge-graph/build"]);
// A save with `expected_updated_at` that finds the note changed since (the page's lost-update guard);
// a 21st webhook; a 101st live share link of a note; a test event for a webhook turned off; a feed
// followed twice or a 501st; a refresh of a paused feed.
const CONFLICT_OPERATIONS = new Set(["PUT /notes/{id}", "POST /webhooks", "POST /notes/{id}/shares", "POST /webhooks/{id}/test", "POST /feeds", "POST /feeds/{id}/refresh"]);

// Operations that check a password or code under a failure throttle, and so can answer 429.
const THROTTLED_PATHS = new Set(["/auth/login", "/auth/password", "/auth/delete-account"]);

function errorStatusesFor(method: string, isProtected: boolean, path: string): number[] {
  const statuses = [400];
  if (isProtected || path === "/auth/login") statuses.push(401);
  // Registration closed (REGISTRATION=closed) is the one 403 of a public operation.
  if (isProtected || path === "/auth/register") statuses.push(403);
  if (path.includes("{")) statuses.push(404);
  if (CONFLICT_PATHS.has(path) || CONFLICT_OPERATIONS.has(`${method} ${path}`)) statuses.push(409);
  if (method !== "GET" && method !== "DELETE") statuses.push(413, 415);
  if (THROTTLED_PATHS.has(path) || path.startsWith("/auth/totp")) statuses.push(429);
  statuses.push(500, 503);
  return [...new Set(statuses)].sort();
}

const errorSchema = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: "tRPC error code name", example: "BAD_REQUEST" },
    message: { type: "string", example: "Input validation failed" },
    issues: {
      type: "array",
      description: "Only for validation errors",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "array", items: { type: ["string", "number"] } }, message: { type: "string" } },
      },
    },
  },
};

function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
}
