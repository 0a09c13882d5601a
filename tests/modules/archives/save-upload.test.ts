import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { saveUpload, UploadTooLargeError } from "../../../src/modules/archives/save-upload";
import { directoryForThisFile } from "../../support/temporary-directory";

const dir = directoryForThisFile("rhizome-upload-");

function chunked(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(sent));
    },
  });
}

describe("saveUpload", () => {
  test("streams the body to a new file under the directory, chunk by chunk", async () => {
    const saved = await saveUpload(chunked(10, 1000), dir, 10_000);
    expect(saved.bytes).toBe(10_000);
    expect(fs.readFileSync(path.join(dir, saved.name)).length).toBe(10_000);
    fs.rmSync(path.join(dir, saved.name));
  });

  test("a body without a declared length that passes the limit is refused and leaves no file", async () => {
    await expect(saveUpload(chunked(11, 1000), dir, 10_000)).rejects.toBeInstanceOf(UploadTooLargeError);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
