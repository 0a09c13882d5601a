import type { AnyRouter } from "@trpc/server";
import { McpError, type ListResourcesResult, type ListResourceTemplatesResult, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { NoteListItem, NoteRecord } from "../modules/notes/schemas";
import { callProcedure, errorOfCall } from "../trpc/call-procedure";
import type { TrpcContext } from "../trpc/context";
import { noteUri } from "./tools";

/** JSON-RPC codes for resource errors: the spec's "resource not found", and invalid request. */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_REQUEST = -32600;
const NOTE_URI = /^rhizome:\/\/notes\/([1-9]\d{0,15})$/;
/** resources/list gives the notes updated last, up to this many. */
export const LISTED_NOTES = 50;

export const noteTemplates: ListResourceTemplatesResult = {
  resourceTemplates: [
    {
      uriTemplate: "rhizome://notes/{id}",
      name: "note",
      title: "Note",
      description: "A note's Markdown content, by its id",
      mimeType: "text/markdown",
    },
  ],
};

/** The notes updated last, as resources, through notes.list (so its scope check and ownership apply). */
export async function listNoteResources(router: AnyRouter, ctx: TrpcContext): Promise<ListResourcesResult> {
  const page = (await call(router, ctx, "notes.list", { size: LISTED_NOTES })) as { items: NoteListItem[] };
  return {
    resources: page.items.map((note) => ({
      uri: noteUri(note.id),
      name: note.title,
      title: note.title,
      description: note.excerpt,
      mimeType: "text/markdown",
      annotations: { lastModified: note.updated_at },
    })),
  };
}

export async function readNoteResource(router: AnyRouter, ctx: TrpcContext, uri: string): Promise<ReadResourceResult> {
  const id = NOTE_URI.exec(uri)?.[1];
  if (!id) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri} (notes are rhizome://notes/{id})`, { uri });
  const note = (await call(router, ctx, "notes.get", { id: Number(id) }, uri)) as NoteRecord;
  return { contents: [{ uri, mimeType: "text/markdown", text: note.content }] };
}

/** Resources have no `isError` result: a failure is a JSON-RPC error with the error body's message. */
async function call(router: AnyRouter, ctx: TrpcContext, path: string, input: unknown, uri?: string): Promise<unknown> {
  try {
    return await callProcedure(router, path, ctx, input);
  } catch (cause) {
    const { body } = errorOfCall(router, cause, { path, ctx, input });
    throw new McpError(body.code === "NOT_FOUND" ? RESOURCE_NOT_FOUND : INVALID_REQUEST, body.message, uri ? { uri } : undefined);
  }
}
