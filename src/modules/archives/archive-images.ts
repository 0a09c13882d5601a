import path from "node:path";
import type { Database } from "../../db/client";
import { ServiceError, UnsupportedMediaTypeError } from "../errors";
import { MAX_FILE_BYTES, type FileStorage } from "../files/blob-store";
import { fileUrl } from "../files/file-record";
import { ACCEPTED_TYPES, storeFile } from "../files/store-file";
import type { TaskFailure } from "../imports/schemas";
import { isHiddenEntry, unsafeNameReason } from "./entry-name";
import { BrokenArchiveError, ZipArchive, type ArchiveEntry } from "./zip-archive";

const IMAGE_NAME = /\.(png|jpe?g|gif|webp|avif)$/i;
/** `![alt](dest)` or `![alt](<dest>)`, with an optional title; external and absolute destinations are not the archive's. */
const MARKDOWN_IMAGE = /!\[((?:\\.|[^\]\\])*)\]\((?:<([^>\n]+)>|([^\s)]+))((?:\s+(?:"[^"\n]*"|'[^'\n]*'))?)\)/g;
/** Obsidian's `![[picture.png]]` or `![[picture.png|300]]`. */
const EMBED = /!\[\[([^\]|#\n]+?)(?:\|[^\]\n]*)?\]\]/g;

/** The archive's pictures by full path, and by file name for `![[embeds]]` (which name a file anywhere in the vault). */
export interface ArchiveImages {
  byPath: Map<string, ArchiveEntry>;
  byName: Map<string, ArchiveEntry>;
}

export async function indexArchiveImages(file: string): Promise<ArchiveImages> {
  const zip = await ZipArchive.open(file);
  const images: ArchiveImages = { byPath: new Map(), byName: new Map() };
  try {
    for await (const entry of zip.entries()) {
      if (entry.isDirectory || !IMAGE_NAME.test(entry.name) || isHiddenEntry(entry.name) || unsafeNameReason(entry.name)) continue;
      const name = entry.name.replaceAll("\\", "/");
      if (!images.byPath.has(name)) images.byPath.set(name, entry);
      const base = path.posix.basename(name).toLowerCase();
      if (!images.byName.has(base)) images.byName.set(base, entry);
    }
  } finally {
    zip.close();
  }
  return images;
}

export interface ArchiveImageRun {
  db: Database;
  storage: FileStorage;
  zip: ZipArchive;
  images: ArchiveImages;
  userId: number;
  taskId: number;
  /** Pictures already stored in this run, by entry name: a picture many notes show is read once. */
  stored: Map<string, number>;
}

/**
 * Stores the pictures a note of the archive shows (`![](relative/path)`, `![[name]]`) as the
 * user's files and points the note at `/api/files/{id}`. Links to pictures the archive does not
 * hold stay as written; a picture that cannot be stored is listed in `failures`.
 */
export async function storeArchiveImages(
  run: ArchiveImageRun,
  noteEntryName: string,
  content: string,
): Promise<{ content: string; fileIds: number[]; failures: TaskFailure[] }> {
  const noteDir = path.posix.dirname(noteEntryName.replaceAll("\\", "/"));
  const failures: TaskFailure[] = [];
  const fileIds = new Set<number>();

  const store = async (entry: ArchiveEntry): Promise<number | undefined> => {
    const known = run.stored.get(entry.name);
    if (known !== undefined) return known;
    try {
      const bytes = await run.zip.read(entry, MAX_FILE_BYTES);
      const row = await storeFile({ db: run.db, storage: run.storage }, { userId: run.userId, body: [bytes], pendingTaskId: run.taskId });
      run.stored.set(entry.name, row.id);
      return row.id;
    } catch (error) {
      if (!(error instanceof BrokenArchiveError) && !(error instanceof ServiceError)) throw error;
      const reason = error instanceof UnsupportedMediaTypeError ? `not a ${ACCEPTED_TYPES} image` : error.message;
      failures.push({ name: entry.name, error: `Picture not stored: ${reason}` });
      return undefined;
    }
  };

  // Resolve every link first (one store per picture), then rewrite in one pass.
  const resolved = new Map<string, number>();
  const linkTargets: [string, ArchiveEntry | undefined][] = [];
  for (const match of content.matchAll(MARKDOWN_IMAGE)) {
    const destination = match[2] ?? match[3]!;
    linkTargets.push([destination, relativeImage(run.images, noteDir, destination)]);
  }
  for (const match of content.matchAll(EMBED)) {
    const target = match[1]!.trim();
    linkTargets.push([`[[${target}]]`, IMAGE_NAME.test(target) ? embeddedImage(run.images, target) : undefined]);
  }
  for (const [key, entry] of linkTargets) {
    if (!entry || resolved.has(key)) continue;
    const id = await store(entry);
    if (id !== undefined) {
      resolved.set(key, id);
      fileIds.add(id);
    }
  }
  if (resolved.size === 0) return { content, fileIds: [], failures };

  const rewritten = content
    .replace(MARKDOWN_IMAGE, (whole, alt: string, angled: string | undefined, bare: string | undefined, title: string) => {
      const id = resolved.get(angled ?? bare!);
      // The title stays, so our own export comes back byte for byte.
      return id === undefined ? whole : `![${alt}](${fileUrl(id)}${title})`;
    })
    .replace(EMBED, (whole, target: string) => {
      const id = resolved.get(`[[${target.trim()}]]`);
      return id === undefined ? whole : `![${path.posix.basename(target.trim()).replace(/[[\]\\]/g, "")}](${fileUrl(id)})`;
    });
  return { content: rewritten, fileIds: [...fileIds], failures };
}

/** A destination relative to the note (or, failing that, to the archive's root) that names one of its pictures. */
function relativeImage(images: ArchiveImages, noteDir: string, destination: string): ArchiveEntry | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(destination) || destination.startsWith("/") || destination.startsWith("#")) return undefined;
  let decoded = destination;
  try {
    decoded = decodeURI(destination);
  } catch {
    // A stray % is part of the name.
  }
  decoded = decoded.split(/[?#]/)[0]!;
  for (const base of [noteDir, "."]) {
    const candidate = path.posix.normalize(path.posix.join(base, decoded));
    if (candidate.startsWith("../")) continue;
    const entry = images.byPath.get(candidate);
    if (entry) return entry;
  }
  return undefined;
}

function embeddedImage(images: ArchiveImages, target: string): ArchiveEntry | undefined {
  const name = target.replaceAll("\\", "/");
  return images.byPath.get(path.posix.normalize(name)) ?? images.byName.get(path.posix.basename(name).toLowerCase());
}
