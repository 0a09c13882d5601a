import { expect, test } from "bun:test";
import { ensureSpace } from "../../../src/modules/semantic/space";
import { nearestVectors } from "../../../src/modules/semantic/vector-store";
import { blobVector, storedVector, vectorBlob } from "../../../src/modules/semantic/stored-vector";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const notes = await notesDatabaseForThisFile();

test("a vector bound as a statement's only parameter, by name or inside an array, round-trips (libsql would abort on a lone typed array)", async () => {
  const vector = new Float32Array([0.25, -1, 3.5]);
  const byName = await notes.client.execute({ sql: "select vector_extract(vector32(:v)) as v", args: { v: vectorBlob(vector) } });
  expect(JSON.parse(String(byName.rows[0]!.v))).toEqual([0.25, -1, 3.5]);
  const inArray = await notes.client.execute({ sql: "select vector32(?) as v", args: [vectorBlob(vector)] });
  expect(Array.from(blobVector(inArray.rows[0]!.v))).toEqual([0.25, -1, 3.5]);
});

test("the nearest vectors are the user's own, ranked by cosine similarity, through the index or exactly", async () => {
  const space = await ensureSpace(notes.db, { model: "unit-test" }, 3);
  const rows: [number, number, number[]][] = [
    [1, 10, [1, 0, 0]],
    [1, 11, [0.9, 0.1, 0]],
    [1, 12, [0, 1, 0]],
    [2, 20, [1, 0, 0]],
  ];
  for (const [user, note, values] of rows) {
    await notes.client.execute({
      sql: `insert into ${space.table} (user_id, note_id, kind, hash, embedding) values (:user, :note, 'passage', :hash, ${storedVector(":embedding")})`,
      args: { user, note, hash: `h${note}`, embedding: vectorBlob(new Float32Array(values)) },
    });
  }
  const near = await nearestVectors(notes.db, space, { userId: 1, vector: new Float32Array([1, 0, 0]), kinds: ["passage"], limit: 2 });
  expect(near.map((hit) => hit.noteId)).toEqual([10, 11]);
  expect(near[0]!.similarity).toBeCloseTo(1, 5);
  const others = await nearestVectors(notes.db, space, { userId: 2, vector: new Float32Array([0, 1, 0]), kinds: ["passage"], limit: 5 });
  expect(others.map((hit) => hit.noteId)).toEqual([20]);
  const excluding = await nearestVectors(notes.db, space, { userId: 1, vector: new Float32Array([1, 0, 0]), kinds: ["passage"], limit: 5, excludeNoteId: 10 });
  expect(excluding.map((hit) => hit.noteId)).toEqual([11, 12]);
});
