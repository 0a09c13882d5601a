import { protectedProcedure, router } from "../../trpc/procedures";
import { listTags } from "./list-tags";
import * as s from "./schemas";

export const tagsRouter = router({
  list: protectedProcedure
    .meta({
      access: "notes:read",
      openapi: {
        method: "GET",
        path: "/tags",
        tags: ["notes"],
        summary: "Your tags with their note counts, most used first, then by name",
      },
    })
    .input(s.listTagsInput)
    .output(s.tagListSchema)
    .query(({ ctx }) => listTags({ ctx })),
});
