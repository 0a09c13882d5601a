import { expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { readPdf } from "../../../src/modules/documents/pdf/read-pdf";
import { pdfWithUnembeddedChineseFont } from "../../support/documents";
import { directoryForThisFile } from "../../support/temporary-directory";

const dir = directoryForThisFile("rhizome-read-pdf-");
const read = (file: string) => readPdf(file, { signal: new AbortController().signal, maxBytes: 100_000, maxPictures: 1, storePicture: async () => null });

test("Chinese set in a font the PDF does not embed (a predefined CMap) is read through PDF.js's CMaps", async () => {
  const file = path.join(dir, "songti.pdf");
  fs.writeFileSync(file, pdfWithUnembeddedChineseFont("中文文档的标题"));
  const reading = await read(file);
  expect(reading.markdown).toBe("[p. 1]\n\n中文文档的标题");
  expect(reading.failures).toEqual([]);
});

test("a file that is no PDF, or a damaged one, is a permanent failure saying so", async () => {
  const file = path.join(dir, "broken.pdf");
  fs.writeFileSync(file, "%PDF-1.4\nnothing else here at all\n");
  await expect(read(file)).rejects.toThrow("not a readable PDF");
});
