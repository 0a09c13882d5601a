import type { AnyRouter } from "@trpc/server";
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
} from "@modelcontextprotocol/server";
import type { NoteListItem, NoteRecord } from "../modules/notes/schemas";
import { callProcedure, errorOfCall } from "../trpc/call-procedure";
import type { Caller } from "./caller";
import { noteUri } from "./tools";

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
export async function listNoteResources(router: AnyRouter, caller: Caller): Promise<ListResourcesResult> {
  const page = (await call(router, caller, "notes.list", { size: LISTED_NOTES })) as { items: NoteListItem[] };
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

/** A note's Markdown, or undefined for a URI that is not a note's (another resource, or none). */
export async function readNoteResource(router: AnyRouter, caller: Caller, uri: string): Promise<ReadResourceResult | undefined> {
  const id = NOTE_URI.exec(uri)?.[1];
  if (!id) return undefined;
  const note = (await call(router, caller, "notes.get", { id: Number(id) }, uri)) as NoteRecord;
  return { contents: [{ uri, mimeType: "text/markdown", text: note.content }] };
}

/**
 * Resources have no `isError` result: a failure is a JSON-RPC error with the error body's
 * message. Not found is the SDK's ResourceNotFoundError, which each revision words its own way.
 */
async function call(router: AnyRouter, caller: Caller, path: string, input: unknown, uri?: string): Promise<unknown> {
  try {
    return await callProcedure(router, path, caller, input);
  } catch (cause) {
    const { body } = errorOfCall(router, cause, { path, ctx: caller, input });
    if (body.code === "NOT_FOUND" && uri) throw new ResourceNotFoundError(uri, body.message);
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, body.message, uri ? { uri } : undefined);
  }
}
