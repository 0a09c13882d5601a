import { z } from "zod";

type JsonSchema = { [key: string]: unknown };

/**
 * A tool's input or output schema as MCP wants it: JSON Schema of an object, written out whole.
 * Zod refers to its named schemas (`Note`, `NoteSource`, …) through `$defs`; several MCP clients
 * do not follow `$ref`, so each reference is replaced by what it names (ours are not recursive).
 * A union of objects becomes an object with `anyOf`, as MCP requires `type: "object"` at the top.
 */
export function toolSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const generated = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  const definitions = (generated.$defs ?? {}) as Record<string, JsonSchema>;
  const { $defs: _definitions, $schema: _dialect, default: _default, ...root } = generated;
  const inlined = inline(root, definitions, 0) as JsonSchema;
  if (inlined.type === "object") return inlined;
  // Input-less procedures (`z.void()`) take an empty object.
  if (Object.keys(inlined).length === 0) return { type: "object", properties: {}, additionalProperties: false };
  return { type: "object", ...inlined };
}

function inline(value: unknown, definitions: Record<string, JsonSchema>, depth: number): unknown {
  if (depth > 32) throw new Error("schema nests too deeply to inline (a recursive $ref?)");
  if (Array.isArray(value)) return value.map((item) => inline(item, definitions, depth + 1));
  if (value === null || typeof value !== "object") return value;
  const object = withoutPrefixItems(value as JsonSchema);
  if (typeof object.$ref === "string" && object.$ref.startsWith("#/$defs/")) {
    const { $ref, ...siblings } = object;
    const target = definitions[$ref.slice("#/$defs/".length)];
    if (!target) throw new Error(`unknown ${$ref}`);
    return inline({ ...target, ...siblings }, definitions, depth + 1);
  }
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, inline(item, definitions, depth + 1)]));
}

/**
 * A tuple as plain array keywords: draft 2020-12 writes it `prefixItems` with `items: false`, which
 * a draft-07 validator (the MCP SDK client's Ajv among them) reads as "no items at all" and so
 * rejects every answer. `items` of the tuple's item schemas, and its length, read the same in both.
 */
function withoutPrefixItems(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.prefixItems)) return schema;
  const { prefixItems, items: _rest, ...others } = schema;
  const distinct = [...new Map((prefixItems as unknown[]).map((item) => [JSON.stringify(item), item])).values()];
  return { ...others, items: distinct.length === 1 ? distinct[0] : { anyOf: distinct }, minItems: prefixItems.length, maxItems: prefixItems.length };
}
