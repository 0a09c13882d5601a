import { describe, expect, test } from "bun:test";
import { strFromU8 } from "fflate";
import { Api } from "../support/api";
import { importArchive } from "../support/archive-import";
import { imageBytes } from "../support/images";
import { allNotes, exportZip, fileBytes } from "../support/read-back";
import { sha256Hex } from "../support/sha256";
import { serverForThisFile } from "../support/server";
import { buildZip } from "../support/zip-builder";

const { api } = await serverForThisFile();

const sha256 = sha256Hex;

async function upload(client: Api, bytes: Uint8Array<ArrayBuffer>) {
  const created = await client.request("POST", "/api/files", { body: bytes, headers: { "content-type": "application/octet-stream" } });
  expect(created.status).toBe(201);
  return created.body as { id: number; url: string; sha256: string };
}

describe("export and archive import keep pictures", () => {
  test("the export holds each referenced file once as files/<sha256>.<ext>, linked relatively; it imports back losslessly", async () => {
    const { api: alice } = await api.newUser("export");
    const png = imageBytes("png", 4000, 41);
    const jpeg = imageBytes("jpeg", 3000, 42);
    const unused = imageBytes("gif", 1000, 43);
    const [a, b] = [await upload(alice, png), await upload(alice, jpeg)];
    await upload(alice, unused);
    const first = await alice.post("/api/notes", { title: "Two pictures", content: `Look:\n\n![a chart](${a.url})\n\n![](${b.url} "a title")\n` });
    const second = await alice.post("/api/notes", { title: "The chart again", content: `![same chart](${a.url}) and a link to /api/files/999999.` });
    expect(first.status).toBe(201);

    const { response, files: zip } = await exportZip(alice, {});
    expect(response.status).toBe(200);
    const pictures = Object.keys(zip).filter((name) => name.startsWith("files/")).sort();
    expect(pictures).toEqual([`files/${sha256(png)}.png`, `files/${sha256(jpeg)}.jpg`].sort());
    expect(Buffer.from(zip[`files/${sha256(png)}.png`]!).equals(Buffer.from(png))).toBe(true);
    const firstFile = strFromU8(zip[Object.keys(zip).find((name) => name.endsWith(`-${first.body.id}.md`))!]!);
    expect(firstFile).toContain(`![a chart](files/${sha256(png)}.png)`);
    expect(firstFile).toContain(`![](files/${sha256(jpeg)}.jpg "a title")`);
    const secondFile = strFromU8(zip[Object.keys(zip).find((name) => name.endsWith(`-${second.body.id}.md`))!]!);
    expect(secondFile).toContain(`![same chart](files/${sha256(png)}.png) and a link to /api/files/999999.`);

    // Rebuilt as a ZIP and imported by its owner: every note unchanged, content and all.
    const rezip = buildZip(Object.entries(zip).map(([name, data]) => ({ name, data, deflate: true })));
    const again = await importArchive(alice, rezip);
    expect(again.status).toBe("completed");
    expect(again.counts).toEqual({ created: 0, updated: 0, unchanged: 2, skipped: 2, failed: 0 });
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 3, bytes: 8000 });

    // Imported by someone else: new notes, the same pictures stored as their own files.
    const { api: bob } = await api.newUser("export");
    const imported = await importArchive(bob, rezip);
    expect(imported.counts).toMatchObject({ created: 2, failed: 0 });
    const notes = await allNotes(bob);
    const chart = notes.find((note) => note.title === "Two pictures");
    const links = [...chart.content.matchAll(/\]\((\/api\/files\/\d+)/g)].map((match) => match[1]);
    expect(links).toHaveLength(2);
    expect(sha256(await fileBytes(bob, links[0]))).toBe(sha256(png));
    expect(sha256(await fileBytes(bob, links[1]))).toBe(sha256(jpeg));
    expect(chart.content).toBe(`Look:\n\n![a chart](${links[0]})\n\n![](${links[1]} "a title")\n`);
    expect((await bob.get("/api/auth/me")).body.storage).toEqual({ files: 2, bytes: 7000 });
  });

  test("a Markdown vault's ![](relative) and ![[embeds]] become stored pictures; a fake picture is listed", async () => {
    const { api: alice } = await api.newUser("vault");
    const pic = imageBytes("webp", 2000, 44);
    const embedded = imageBytes("png", 2500, 45);
    const zip = buildZip([
      { name: "Daily/2026-11-20.md", data: "# Walk\n\n![park](../attachments/park%20view.webp)\n\n![[sunset.png|300]]\n\n![[Other note]]\n\n![fake](../attachments/fake.png)\n\n![remote](https://example.com/x.png)\n" },
      { name: "attachments/park view.webp", data: pic, deflate: true },
      { name: "attachments/deep/sunset.png", data: embedded },
      { name: "attachments/fake.png", data: "<svg xmlns='http://www.w3.org/2000/svg'/>" },
    ]);
    const task = await importArchive(alice, zip);
    expect(task.status).toBe("completed");
    expect(task.counts).toEqual({ created: 1, updated: 0, unchanged: 0, skipped: 3, failed: 0 });
    expect(task.failures).toEqual([{ name: "Daily/2026-11-20.md: attachments/fake.png", error: "Picture not stored: not a PNG, JPEG, GIF, WebP or AVIF image" }]);
    const [note] = await allNotes(alice);
    const ids = [...note.content.matchAll(/\/api\/files\/(\d+)/g)].map((match) => `/api/files/${match[1]}`);
    expect(note.content).toBe(`# Walk\n\n![park](${ids[0]})\n\n![sunset.png](${ids[1]})\n\n![[Other note]]\n\n![fake](../attachments/fake.png)\n\n![remote](https://example.com/x.png)\n`);
    expect(sha256(await fileBytes(alice, ids[0]!))).toBe(sha256(pic));
    expect(sha256(await fileBytes(alice, ids[1]!))).toBe(sha256(embedded));

    // Deleting the note, then purging it from the trash, takes its pictures with it.
    expect((await alice.delete(`/api/notes/${note.id}`)).status).toBe(204);
    expect((await alice.get("/api/auth/me")).body.storage.files).toBe(2);
    expect((await alice.delete(`/api/trash/${note.id}`)).status).toBe(204);
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 0, bytes: 0 });
  });
});
