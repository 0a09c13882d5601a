import { z } from "zod";

export const tagCountSchema = z
  .object({
    tag: z.string(),
    count: z.number().int().positive().describe("How many of your notes carry the tag"),
  })
  .meta({ id: "TagCount" });

export const tagListSchema = z.object({ items: z.array(tagCountSchema) }).meta({ id: "TagList" });

export const listTagsInput = z.void();

export type TagList = z.infer<typeof tagListSchema>;
