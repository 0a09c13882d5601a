import { protectedProcedure, router } from "../../trpc/procedures";
import { toFileRecord } from "./file-record";
import { getFile } from "./get-file";
import * as s from "./schemas";

export const filesRouter = router({
  // REST reads the bytes at GET /api/files/{id} (a plain route); the record is a tRPC call only.
  get: protectedProcedure
    .meta({ access: "notes:read" })
    .input(s.fileIdInput)
    .output(s.fileRecordSchema)
    .query(async ({ ctx, input }) => toFileRecord(await getFile({ ctx, input }))),
});
