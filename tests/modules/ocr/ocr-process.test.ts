import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createOcrProcess } from "../../../src/modules/ocr/ocr-process";
import { chromiumForThisFile } from "../../support/browser";
import { assertChineseFont, characterErrorRate, CHINESE, drawTextPicture, ENGLISH } from "../../support/ocr-pictures";
import { directoryForThisFile } from "../../support/temporary-directory";

assertChineseFont();
const browser = await chromiumForThisFile();
const dir = directoryForThisFile("rhizome-ocr-process-");
const lines = [CHINESE[1]!, ENGLISH[3]!];
const picture = path.join(dir, "picture.png");
fs.writeFileSync(picture, await drawTextPicture(browser, { lines, width: 960, height: 320, fontSize: 30 }));
const ocr = createOcrProcess();
afterAll(() => ocr.stop());

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the OCR process", () => {
  test("reads a stored picture in a process of its own, kept warm for the next", async () => {
    const reading = await ocr.read(picture);
    expect("lines" in reading && characterErrorRate(lines.join(""), reading.lines.join(""))).toBeLessThanOrEqual(0.03);
    const pid = ocr.pid!;
    expect(pid).not.toBe(process.pid);
    await ocr.read(picture);
    expect(ocr.pid).toBe(pid);
    expect(ocr.stats.starts).toBe(1);
  });

  test("a killed process is replaced at the next picture", async () => {
    const pid = ocr.pid!;
    process.kill(pid, "SIGKILL");
    await Bun.sleep(100);
    const reading = await ocr.read(picture);
    expect("lines" in reading && reading.lines).toHaveLength(2);
    expect(ocr.pid).not.toBe(pid);
  });

  test("what is not a picture is unreadable, and the process lives on", async () => {
    const pid = ocr.pid;
    const fake = path.join(dir, "fake.png");
    fs.writeFileSync(fake, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 1, 0, 0, 0, 1, 0, 8, 2, 0, 0, 0, 1, 2, 3]));
    const html = path.join(dir, "page.html");
    fs.writeFileSync(html, "<!doctype html><svg onload=alert(1)>");
    expect(await ocr.read(fake)).toEqual({ unreadable: expect.stringMatching(/cannot be decoded/) });
    expect(await ocr.read(html)).toEqual({ unreadable: "not a picture the service stores" });
    expect(ocr.pid).toBe(pid);
  });

  test("a process past its memory bound is replaced after its answer", async () => {
    const small = createOcrProcess({ maxRssBytes: 1 });
    try {
      await small.read(picture);
      expect(small.pid).toBeUndefined();
      expect("lines" in (await small.read(picture))).toBe(true);
      expect(small.stats.starts).toBe(2);
    } finally {
      await small.stop();
    }
  });

  test("stopping kills it", async () => {
    const pid = ocr.pid!;
    await ocr.stop();
    expect(alive(pid)).toBe(false);
    expect(ocr.pid).toBeUndefined();
  });
});
