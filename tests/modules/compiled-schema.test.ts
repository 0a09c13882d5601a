import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { compiledSchema } from "../../src/modules/compiled-schema";
import { graphSchema } from "../../src/modules/graph/read-schemas";

const node = { id: 1, label: "Kahneman", type: "person", description: "A psychologist.", weight: 3, degree: 1, community: 0, note_ids: [1, 2], aliases: [] };
const edge = { id: 7, source: 1, target: 2, label: "wrote", weight: 1, note_ids: [2] };
const graph = { nodes: [node, { ...node, id: 2, label: "Thinking, Fast and Slow" }], edges: [edge], stats: { nodes: 2, edges: 1, total_nodes: 2, total_edges: 1, communities: 1 } };

/** The interpreter's answer for a schema: a parse on the uncompiled definition. */
function interpreted(value: unknown) {
  return z.object(graphSchema.shape).safeParse(value);
}

describe("a compiled schema", () => {
  test("answers a valid value as the interpreter does, in a fresh object", () => {
    const parsed = graphSchema.parse(graph);
    expect(parsed).toEqual(interpreted(graph).data!);
    expect(parsed).not.toBe(graph);
  });

  test("strips keys the schema does not name, as the interpreter does", () => {
    const leaky = { ...graph, nodes: [{ ...node, password_hash: "x" }], edges: [{ ...edge, user_id: 3 }], extra: true };
    const parsed = graphSchema.parse(leaky);
    expect(parsed).toEqual(interpreted(leaky).data!);
    expect(JSON.stringify(parsed)).not.toContain("password_hash");
  });

  test("rejects an invalid value with the interpreter's issues", () => {
    const invalid = { ...graph, nodes: [{ ...node, id: -1 }], edges: [{ ...edge, weight: 1.5 }] };
    const compiled = graphSchema.safeParse(invalid);
    expect(compiled.success).toBe(false);
    expect(compiled.error!.issues).toEqual(interpreted(invalid).error!.issues);
  });

  test("keeps the metadata it is given, for the document", () => {
    const schema = compiledSchema(z.object({ id: z.number() }), { id: "CompiledSchemaTest", description: "A test" });
    expect(z.globalRegistry.get(schema)).toEqual({ id: "CompiledSchemaTest", description: "A test" });
    expect(schema.parse({ id: 1, other: 2 })).toEqual({ id: 1 });
  });
});
