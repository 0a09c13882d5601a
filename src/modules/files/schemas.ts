import { z } from "zod";
import { FILE_MIME_TYPES } from "./file-types";

export const fileRecordSchema = z
  .object({
    id: z.number().int().positive(),
    url: z.string().meta({ example: "/api/files/7" }),
    mime: z.enum(FILE_MIME_TYPES).describe("Pictures are typed from their bytes; the other types are originals of imported documents (section Documents)"),
    size: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "File" });

export type FileRecord = z.infer<typeof fileRecordSchema>;

export const fileIdInput = z.object({ id: z.coerce.number().int().positive() });

export const storageSchema = z
  .object({ files: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() })
  .meta({ id: "Storage", description: "The user's stored files: how many, and their total size in bytes" });
