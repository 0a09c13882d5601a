import fs from "node:fs";
import path from "node:path";
import type { Downloader, MediaLocation } from "../imports/platforms/types";
import { TranscriptError } from "./transcript-error";

/** The files a task's transcription keeps under DATA_DIR/media while it runs. */
export function mediaPaths(mediaDir: string, taskId: number) {
  return {
    media: path.join(mediaDir, `task-${taskId}.media`),
    partial: path.join(mediaDir, `task-${taskId}.media.part`),
    piece: (index: number) => path.join(mediaDir, `task-${taskId}-piece-${index}.m4a`),
  };
}

/** Deletes everything the task left under DATA_DIR/media (its download, an upload, pieces). */
export function removeTaskMedia(mediaDir: string, taskId: number, upload?: string): void {
  if (!mediaDir) return;
  const prefix = `task-${taskId}`;
  let names: string[] = [];
  try {
    names = fs.readdirSync(mediaDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === `${prefix}.media` || name === `${prefix}.media.part` || name.startsWith(`${prefix}-piece-`)) fs.rmSync(path.join(mediaDir, name), { force: true });
  }
  if (upload) fs.rmSync(path.join(mediaDir, path.basename(upload)), { force: true });
}

/**
 * Streams the media to `<file>.part` through the import's guarded downloader (address rules, size
 * cap, deadline, the platform's headers), then renames it: a file under its final name is whole,
 * so a resumed job uses it as it is.
 */
export async function downloadMedia(download: Downloader, location: MediaLocation, files: { media: string; partial: string }, signal: AbortSignal): Promise<number> {
  if (fs.existsSync(files.media)) return fs.statSync(files.media).size;
  await fs.promises.mkdir(path.dirname(files.media), { recursive: true, mode: 0o700 });
  const handle = await fs.promises.open(files.partial, "w", 0o600);
  let bytes = 0;
  try {
    await download(location.url, { headers: location.headers, signal }, async (body) => {
      for await (const chunk of body) {
        bytes += chunk.byteLength;
        await handle.write(chunk);
      }
    });
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => {});
    fs.rmSync(files.partial, { force: true });
    throw error;
  }
  if (bytes === 0) {
    fs.rmSync(files.partial, { force: true });
    throw new TranscriptError("the video's sound could not be downloaded (the server sent nothing)", { permanent: false });
  }
  fs.renameSync(files.partial, files.media);
  return bytes;
}
