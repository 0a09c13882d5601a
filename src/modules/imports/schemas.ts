import { z } from "zod";
import { pageQuery, pageEnvelope } from "../notes/schemas";

export const PLATFORMS = ["wechat", "xiaohongshu", "bilibili", "douyin", "web"] as const;
export type Platform = (typeof PLATFORMS)[number];
export const MAX_PASTED_BYTES = 10 * 1024 * 1024;
/** The saved HTML of a WeChat article is 2–4 MiB; the body limit leaves room for JSON escaping. */
export const CREATE_TASK_BODY_LIMIT = 12 * 1024 * 1024;

export const createTaskInput = z
  .object({
    platform: z
      .enum([...PLATFORMS, "auto"])
      .optional()
      .describe(
        "Where the content comes from; `web` is any article page. Omitted or `auto`: chosen from the URL's host (mp.weixin.qq.com → wechat; xiaohongshu.com, xhslink.com → xiaohongshu; bilibili.com, b23.tv → bilibili; douyin.com, iesdouyin.com → douyin; subdomains included), anything else or no URL → web",
      ),
    url: z
      .url({ protocol: /^https?$/, error: "Must be an http or https URL" })
      .max(2048)
      .optional()
      .describe("The page to import (http or https, up to 2048 characters)"),
    content: z
      .string()
      .min(1)
      .refine((value) => Buffer.byteLength(value, "utf8") <= MAX_PASTED_BYTES, "Must be at most 10 MiB of UTF-8")
      .optional()
      .describe("Pasted text, Markdown or the saved HTML source of the platform's page; nothing is fetched"),
  })
  .refine((input) => input.url !== undefined || input.content !== undefined, {
    message: "Give a url to fetch, or the content to import",
    path: ["url"],
  });

/** What a task did to notes: every archive entry (or a single import's one note) counted once. */
export const taskCountsSchema = z
  .object({
    created: z.number().int().min(0),
    updated: z.number().int().min(0),
    unchanged: z.number().int().min(0),
    skipped: z.number().int().min(0),
    failed: z.number().int().min(0),
  })
  .meta({ id: "ImportTaskCounts" });
export type TaskCounts = z.infer<typeof taskCountsSchema>;

export const taskFailureSchema = z.object({ name: z.string(), error: z.string() }).meta({ id: "ImportTaskFailure" });
export type TaskFailure = z.infer<typeof taskFailureSchema>;

export const taskStatusSchema = z.enum(["pending", "running", "completed", "failed"]);

export const taskSchema = z
  .object({
    id: z.number().int().positive(),
    platform: z
      .enum([...PLATFORMS, "archive", "audio", "document"])
      .describe("`archive` for POST /api/tasks/archive, `audio` for POST /api/tasks/audio, `document` for POST /api/tasks/document (a web import of a PDF link stays `web`)"),
    url: z.string().nullable(),
    status: taskStatusSchema,
    progress: z.number().int().min(0).max(100),
    message: z.string().describe("The current step, for people"),
    error: z.string().nullable().describe("Why the import failed, and what to do"),
    note_id: z.number().int().positive().nullable().describe("The note a single import created, updated or found unchanged; null for archives"),
    counts: taskCountsSchema.nullable().describe("Notes created, updated, unchanged, skipped and failed; null while unknown"),
    failures: z.array(taskFailureSchema).max(100).describe("What was skipped or failed and why (at most 100)"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    feed_id: z.number().int().positive().nullable().describe("The feed whose item this task imports (GET /api/feeds/{id}); null for every other task"),
  })
  .meta({ id: "ImportTask" });

export const listTasksInput = z.object(pageQuery).prefault({});
export const taskPageSchema = pageEnvelope(taskSchema, "ImportTaskPage");
export const taskIdInput = z.object({
  id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

export type TaskRecord = z.infer<typeof taskSchema>;
