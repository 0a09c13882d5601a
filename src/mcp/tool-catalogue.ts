import { z } from "zod";
import type { ToolAnnotations } from "@modelcontextprotocol/server";
import { listNotesInput, searchQuerySchema } from "../modules/notes/schemas";
import type { NoteListItem, NoteRecord } from "../modules/notes/schemas";
import { getGraphInput } from "../modules/graph/read-schemas";

/**
 * The MCP tools: each is one tRPC procedure, named for an agent. The procedure gives the
 * description, the scope, the input and output schemas and the code; a spec may only narrow the
 * input (search_notes requires `q`), and reshape input and answer where MCP or ChatGPT asks for
 * another shape (a delete's empty answer, ChatGPT's search/fetch).
 */
export interface ToolSpec {
  name: string;
  procedure: string;
  title: string;
  annotations: ToolAnnotations;
  /** Derived from the procedure's own input schema; what the agent sends is parsed with it first. */
  input?: (procedureInput: z.ZodType) => z.ZodType;
  /** The procedure's input made from the tool's (parsed) arguments, when they differ. */
  toProcedureInput?: (args: any) => unknown;
  /** The answer reshaped, with its schema, when the procedure's own is not an object MCP can carry. */
  output?: { schema: z.ZodType; from: (answer: any, args: any) => Record<string, unknown> };
  /** Overrides the operation's description (only for tools that are not one operation's answer). */
  description?: string;
  /** The answer is one note: the result links `rhizome://notes/{id}`. */
  linksNote?: boolean;
  /** The tool's `_meta` in tools/list (MCP Apps name the tool's UI here: `{ ui: { resourceUri } }`). */
  meta?: Record<string, unknown>;
}

const READ: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const CREATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const listShape = (listNotesInput as unknown as z.ZodPrefault<z.ZodObject>).unwrap().shape;
const graphShape = (getGraphInput as unknown as z.ZodPrefault<z.ZodObject>).unwrap().shape;
const requiredQuery = (searchQuerySchema as z.ZodOptional<z.ZodString>).unwrap().min(1, "Give some words to search for");

/** Where a person opens a note in this service's page (the `url` ChatGPT shows). */
export type NoteUrl = (id: number) => string;

export function toolCatalogue(noteUrl: NoteUrl): ToolSpec[] {
  return [
    {
      name: "search_notes",
      procedure: "notes.list",
      title: "Search notes",
      annotations: READ,
      input: () => z.object({ q: requiredQuery, tag: listShape.tag!, mode: listShape.mode!, page: listShape.page!, size: listShape.size! }),
    },
    { name: "related_notes", procedure: "search.related", title: "Related notes", annotations: READ },
    {
      name: "list_notes",
      procedure: "notes.list",
      title: "List notes",
      annotations: READ,
      input: () => z.object({ tag: listShape.tag!, page: listShape.page!, size: listShape.size! }),
      description: "List notes, newest first, optionally only those with a tag",
    },
    // The tags and their counts: an agent filing a note picks from the user's own vocabulary.
    { name: "list_tags", procedure: "tags.list", title: "List tags", annotations: READ },
    { name: "get_note", procedure: "notes.get", title: "Read a note", annotations: READ, linksNote: true },
    { name: "create_note", procedure: "notes.create", title: "Create a note", annotations: CREATE, linksNote: true },
    {
      name: "update_note",
      procedure: "notes.update",
      title: "Update a note",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      linksNote: true,
    },
    {
      name: "delete_note",
      procedure: "notes.delete",
      title: "Delete a note",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      // The operation answers 204 with no body; MCP needs an object, so it says what was done.
      output: {
        schema: z.object({ id: z.number().int().positive(), deleted: z.literal(true) }),
        from: (_answer, args: { id: number }) => ({ id: args.id, deleted: true }),
      },
    },
    { name: "list_versions", procedure: "history.versions", title: "List a note's earlier versions", annotations: READ },
    {
      name: "restore_version",
      procedure: "history.restoreVersion",
      title: "Restore an earlier version of a note",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      linksNote: true,
    },
    { name: "ask", procedure: "ask.ask", title: "Ask your notes", annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: true } },
    {
      name: "search_concepts",
      procedure: "graph.get",
      title: "Search concepts in the knowledge graph",
      annotations: READ,
      input: () => z.object({ q: (graphShape.q as z.ZodOptional<z.ZodString>).unwrap(), limit: graphShape.limit! }),
    },
    { name: "get_concept", procedure: "graph.node", title: "Read a concept", annotations: READ },
    { name: "import", procedure: "tasks.create", title: "Import a page or pasted content", annotations: { ...CREATE, openWorldHint: true } },
    { name: "get_task", procedure: "tasks.get", title: "Follow an import task", annotations: READ },
    { name: "build_graph", procedure: "graph.build", title: "Build the knowledge graph", annotations: CREATE },
    { name: "list_feeds", procedure: "feeds.list", title: "List followed feeds", annotations: READ },
    // It fetches the address it is given, as `import` does: the open world.
    { name: "subscribe_feed", procedure: "feeds.create", title: "Follow a feed, a page that names one, or a Bilibili space", annotations: CREATE },
    { name: "whoami", procedure: "auth.me", title: "Who am I", annotations: READ },
    // The pair ChatGPT's connectors and deep research call: ids are strings, the text is the note's Markdown.
    {
      name: "search",
      procedure: "notes.list",
      title: "Search notes (ChatGPT)",
      description: "Full-text search of your notes; returns ids to pass to `fetch`.",
      annotations: READ,
      input: () => z.object({ query: requiredQuery }),
      toProcedureInput: (args: { query: string }) => ({ q: args.query, size: 20 }),
      output: {
        schema: z.object({ results: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })) }),
        from: (page: { items: NoteListItem[] }) => ({
          results: page.items.map((item) => ({ id: String(item.id), title: item.title, url: noteUrl(item.id) })),
        }),
      },
    },
    {
      name: "fetch",
      procedure: "notes.get",
      title: "Fetch a note (ChatGPT)",
      description: "One note by the id `search` gave: its Markdown text, a link to it, and its tags, dates and source.",
      annotations: READ,
      // The note's own id rules apply when the procedure reads it.
      input: () => z.object({ id: z.string().regex(/^[1-9]\d{0,15}$/, "An id from `search`: a positive integer, as a string") }),
      toProcedureInput: (args: { id: string }) => ({ id: Number(args.id) }),
      output: {
        schema: z.object({
          id: z.string(),
          title: z.string(),
          text: z.string(),
          url: z.string(),
          metadata: z.object({
            tags: z.array(z.string()),
            created_at: z.string(),
            updated_at: z.string(),
            source_platform: z.string().nullable(),
            source_url: z.string().nullable(),
          }),
        }),
        from: (note: NoteRecord) => ({
          id: String(note.id),
          title: note.title,
          text: note.content,
          url: noteUrl(note.id),
          metadata: {
            tags: note.tags,
            created_at: note.created_at,
            updated_at: note.updated_at,
            source_platform: note.source?.platform ?? null,
            source_url: note.source?.url ?? null,
          },
        }),
      },
    },
  ];
}
