import { afterAll, describe, expect, test } from "bun:test";
import { createOcrProcess } from "../../src/modules/ocr/ocr-process";
import { Api } from "../support/api";
import { importArchive } from "../support/archive-import";
import { chromiumForThisFile } from "../support/browser";
import { imageBytes } from "../support/images";
import { assertChineseFont, characterErrorRate, CHINESE, drawTextPicture, ENGLISH } from "../support/ocr-pictures";
import { serverForThisFile, startTestServer } from "../support/server";
import { settleTask } from "../support/settle-task";
import { until } from "../support/until";
import { buildZip } from "../support/zip-builder";

assertChineseFont();
const browser = await chromiumForThisFile();
const ocr = createOcrProcess();
afterAll(() => ocr.stop());

// Pictures of known sentences; each test draws its own so none is read from another's cache by accident.
const picture = (lines: string[]) => drawTextPicture(browser, { lines, width: 1000, height: 80 + lines.length * 70, fontSize: 34 });
const SEARCHED = ["Marmalade octopus visits the harbour."];
const pictures = {
  mixed: await picture([CHINESE[0]!, ENGLISH[1]!]),
  searched: await picture(SEARCHED),
  page: await picture([CHINESE[3]!, ENGLISH[5]!]),
  web: [await picture([CHINESE[4]!]), await picture([ENGLISH[6]!, CHINESE[6]!])],
  later: await picture([ENGLISH[7]!]),
  afterKill: await picture([CHINESE[5]!]),
  afterGarbage: await picture([ENGLISH[4]!]),
  archived: await picture([CHINESE[2]!, ENGLISH[2]!]),
};

const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const { pathname } = new URL(request.url);
    const match = /^\/pics\/(\d)\.png$/.exec(pathname);
    if (match) return new Response(pictures.web[Number(match[1])], { headers: { "content-type": "image/png" } });
    const paragraphs = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i} of an article whose pictures say more than its words, as a photo essay does.</p>`).join("");
    return new Response(
      `<!doctype html><html><head><title>Pictures with words</title></head><body><article><h1>Pictures with words</h1>${paragraphs}<p><img src="/pics/0.png" alt="first"></p>${paragraphs}<p><img src="/pics/1.png" alt="second"></p></article></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  },
});
afterAll(() => site.stop(true));

const { api, db } = await serverForThisFile({ OCR: "local", IMPORT_ALLOW_PRIVATE_NETWORKS: "true" }, { ocrQuietMs: 0, ocrProcess: ocr });

async function upload(client: Api, bytes: Uint8Array): Promise<number> {
  const created = await client.request("POST", "/api/files", { body: bytes as BodyInit, headers: { "content-type": "application/octet-stream" } });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function createNote(client: Api, content: string): Promise<number> {
  const created = await client.post("/api/notes", { title: "Pictures", content });
  expect(created.status).toBe(201);
  return created.body.id;
}

const readNote = async (client: Api, id: number): Promise<string> => (await client.get(`/api/notes/${id}`)).body.content;

/** Waits until the note's content passes `done` (the OCR job has written it). */
const noteWhen = (client: Api, id: number, done: (content: string) => boolean, what: string) =>
  until(() => readNote(client, id), { timeoutMs: 60_000, intervalMs: 100, done, what });

/** The section's paragraphs by picture number: the file it links to and the text after the link. */
function paragraphsOf(content: string): Map<number, { fileId: number; text: string }> {
  const section = content.slice(content.indexOf("## Text in pictures"));
  return new Map(
    [...section.matchAll(/^\[picture (\d+)\]\(\/api\/files\/(\d+)\) ([^\n]*(?:\n(?!\n)[^\n]*)*)/gm)].map((match) => [Number(match[1]), { fileId: Number(match[2]), text: match[3]! }]),
  );
}

/** Until the job has recorded the note as given its pictures (whether or not it wrote anything). */
const recorded = (noteId: number) =>
  until(async () => (await db.execute({ sql: "select file_ids from ocr_notes where note_id = ?", args: [noteId] })).rows[0]?.file_ids, { timeoutMs: 60_000, what: `note ${noteId} recorded` });

describe("text in pictures", () => {
  test("uploaded pictures of a note get `## Text in pictures`, a paragraph each after its [picture N] link, and search finds their words", async () => {
    const { api: alice } = await api.newUser("ocr");
    const [mixed, searched] = [await upload(alice, pictures.mixed), await upload(alice, pictures.searched)];
    const body = `# Holiday\n\nThe sign: ![sign](/api/files/${mixed})\n\nAnd the poster:\n\n![poster](/api/files/${searched})\n`;
    const id = await createNote(alice, body);
    expect((await alice.get(`/api/notes?q=marmalade`)).body.total).toBe(0);
    const content = await noteWhen(alice, id, (text) => text.includes("## Text in pictures"), "the section");
    expect(content.startsWith(body.trimEnd())).toBe(true);
    const paragraphs = paragraphsOf(content);
    expect([...paragraphs.keys()]).toEqual([1, 2]);
    expect(paragraphs.get(1)!.fileId).toBe(mixed);
    expect(characterErrorRate(CHINESE[0]! + ENGLISH[1]!, paragraphs.get(1)!.text)).toBeLessThanOrEqual(0.03);
    expect(paragraphs.get(2)!.fileId).toBe(searched);
    expect(characterErrorRate(SEARCHED[0]!, paragraphs.get(2)!.text)).toBeLessThanOrEqual(0.03);
    // A word found only in a picture.
    expect((await alice.get(`/api/notes?q=marmalade`)).body.items.map((item: { id: number }) => item.id)).toEqual([id]);
    // A system edit, put down to OCR; the person's text is the version it replaced.
    const versions = (await alice.get(`/api/notes/${id}/versions`)).body.items;
    expect(versions[0].by).toEqual({ kind: "session", name: null });

    // A new picture added by the person: the section is rewritten with three paragraphs, not added again.
    const later = await upload(alice, pictures.later);
    const edited = await alice.put(`/api/notes/${id}`, { content: content.replace("And the poster:", `And the poster, and a third: ![third](/api/files/${later})`) });
    expect(edited.status).toBe(200);
    const rewritten = await noteWhen(alice, id, (text) => paragraphsOf(text).size === 3, "three paragraphs");
    expect(rewritten.match(/## Text in pictures/g)).toHaveLength(1);
    expect([...paragraphsOf(rewritten).values()].map((paragraph) => paragraph.fileId)).toEqual([mixed, later, searched]);
  });

  test("an imported page's stored pictures are read too", async () => {
    const { api: alice } = await api.newUser("ocr");
    const created = await alice.post("/api/tasks", { platform: "web", url: `http://127.0.0.1:${site.port}/essay.html` });
    expect(created.status).toBe(201);
    const task = await settleTask(alice, created.body.id);
    expect(task.status).toBe("completed");
    const content = await noteWhen(alice, task.note_id, (text) => paragraphsOf(text).size === 2, "the imported pictures' text");
    const paragraphs = paragraphsOf(content);
    expect(characterErrorRate(CHINESE[4]!, paragraphs.get(1)!.text)).toBeLessThanOrEqual(0.03);
    expect(characterErrorRate(ENGLISH[6]! + CHINESE[6]!, paragraphs.get(2)!.text)).toBeLessThanOrEqual(0.03);
  });

  test("an archive's notes, which send no note events, are looked through when the import ends", async () => {
    const { api: alice } = await api.newUser("ocr");
    const zip = buildZip([
      { name: "Trips/poster.md", data: "# Poster\n\n![poster](../attachments/poster.png)\n" },
      { name: "Trips/plain.md", data: "# Plain\n\nNo pictures here.\n" },
      { name: "attachments/poster.png", data: pictures.archived },
    ]);
    const task = await importArchive(alice, zip);
    expect(task.status).toBe("completed");
    const found = await until(async () => (await alice.get("/api/notes?q=Poster")).body.items[0]?.id as number | undefined, { what: "the archived note" });
    const content = await noteWhen(alice, found, (text) => text.includes("## Text in pictures"), "the archived picture's text");
    expect(characterErrorRate(CHINESE[2]! + ENGLISH[2]!, paragraphsOf(content).get(1)!.text)).toBeLessThanOrEqual(0.03);
  });

  test("a PDF page without text ([p. N], then its picture) gets its text right after the picture, not in the section", async () => {
    const { api: alice } = await api.newUser("ocr");
    const page = await upload(alice, pictures.page);
    const body = `[p. 1]\n\nThe first page had a text layer.\n\n[p. 2]\n\n![Page 2](/api/files/${page})\n\n[p. 3]\n\nThe third did too.\n`;
    const id = await createNote(alice, body);
    const content = await noteWhen(alice, id, (text) => text !== body, "the page's text");
    const [before, after] = content.split(`![Page 2](/api/files/${page})\n\n`) as [string, string];
    expect(before).toBe("[p. 1]\n\nThe first page had a text layer.\n\n[p. 2]\n\n");
    const [read, rest] = after.split("\n\n[p. 3]") as [string, string];
    expect(characterErrorRate(CHINESE[3]! + ENGLISH[5]!, read)).toBeLessThanOrEqual(0.03);
    expect(rest).toBe("\n\nThe third did too.\n");
    expect(content).not.toContain("Text in pictures");
  });

  test("a picture is read once: another user's note with the same picture costs no OCR", async () => {
    const { api: alice } = await api.newUser("ocr");
    const { api: bob } = await api.newUser("ocr");
    const first = await createNote(alice, `![](/api/files/${await upload(alice, pictures.page)})\n\nmine`);
    await noteWhen(alice, first, (text) => text.includes("## Text in pictures"), "alice's section");
    const asked = ocr.stats.pictures;
    const second = await createNote(bob, `Bob's copy: ![](/api/files/${await upload(bob, pictures.page)})`);
    const content = await noteWhen(bob, second, (text) => text.includes("## Text in pictures"), "bob's section");
    expect(characterErrorRate(CHINESE[3]! + ENGLISH[5]!, paragraphsOf(content).get(1)!.text)).toBeLessThanOrEqual(0.03);
    expect(ocr.stats.pictures).toBe(asked);
  });

  test("a picture that is not one fails softly: the note stays as it was, and the next picture is read", async () => {
    const { api: alice } = await api.newUser("ocr");
    const body = `Garbage that starts like a PNG: ![](/api/files/${await upload(alice, imageBytes("png", 20_000, 5))}) and a GIF: ![](/api/files/${await upload(alice, imageBytes("gif", 3_000, 6))})`;
    const id = await createNote(alice, body);
    await recorded(id);
    expect(await readNote(alice, id)).toBe(body);
    const unreadable = await db.execute("select count(*) as n from ocr_texts where unreadable is not null");
    expect(Number(unreadable.rows[0]!.n)).toBe(2);
    // The process lived through it: the next picture is read by the same one.
    const pid = ocr.pid;
    const next = await createNote(alice, `![](/api/files/${await upload(alice, pictures.afterGarbage)})`);
    const content = await noteWhen(alice, next, (text) => text.includes("## Text in pictures"), "the next picture's text");
    expect(characterErrorRate(ENGLISH[4]!, paragraphsOf(content).get(1)!.text)).toBeLessThanOrEqual(0.03);
    expect(ocr.pid).toBe(pid);
  });

  test("a killed OCR process is replaced at the next picture", async () => {
    const { api: alice } = await api.newUser("ocr");
    const before = ocr.stats.starts;
    if (ocr.pid) process.kill(ocr.pid, "SIGKILL");
    const id = await createNote(alice, `After the crash: ![](/api/files/${await upload(alice, pictures.afterKill)})`);
    const content = await noteWhen(alice, id, (text) => text.includes("## Text in pictures"), "the section after a crash");
    expect(characterErrorRate(CHINESE[5]!, paragraphsOf(content).get(1)!.text)).toBeLessThanOrEqual(0.03);
    expect(ocr.stats.starts).toBe(before + 1);
  });
});

describe("with OCR=off", () => {
  test("nothing is read and the note stays as written", async () => {
    const unused = createOcrProcess();
    const off = await startTestServer({ OCR: "off" }, { ocrQuietMs: 0, ocrProcess: unused });
    try {
      const { api: alice } = await new Api(off.url).newUser("ocr-off");
      const body = `![](/api/files/${await upload(alice, pictures.mixed)})`;
      const id = await createNote(alice, body);
      await Bun.sleep(2500);
      expect(await readNote(alice, id)).toBe(body);
      expect(unused.stats.pictures).toBe(0);
      const client = off.openNotesClient();
      expect((await client.execute("select count(*) as n from ocr_notes")).rows[0]!.n).toBe(0);
      client.close();
    } finally {
      await off.stop();
      await unused.stop();
    }
  });
});
