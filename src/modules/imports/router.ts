import { createTask } from "./create-task";
import { getTask, listTasks } from "./list-tasks";
import * as s from "./schemas";
import { protectedProcedure, router } from "../../trpc/procedures";

const tags = ["imports"];

export const importsRouter = router({
  create: protectedProcedure
    .meta({ access: "imports",
      openapi: {
        method: "POST",
        path: "/tasks",
        tags,
        summary: "Import content from a platform, as a background task",
        description:
          "Give `url` to fetch the page, or `content` (pasted text, Markdown, or the saved HTML source of the platform's page, up to 10 MiB) to import it without fetching. Omit `platform` (or send `auto`) to have it chosen from the URL's host; the task shows the platform chosen. The task moves pending → running → completed (with `note_id`) or failed (with `error`); poll GET /api/tasks/{id}. Bodies up to 12 MiB.",
      },
      successStatus: 201,
      maxBodyBytes: s.CREATE_TASK_BODY_LIMIT,
    })
    .input(s.createTaskInput)
    .output(s.taskSchema)
    .mutation(({ ctx, input }) => createTask({ ctx, input })),

  list: protectedProcedure
    .meta({ access: "imports", openapi: { method: "GET", path: "/tasks", tags, summary: "List import tasks, newest first" } })
    .input(s.listTasksInput)
    .output(s.taskPageSchema)
    .query(({ ctx, input }) => listTasks({ ctx, input })),

  get: protectedProcedure
    .meta({ access: "imports", openapi: { method: "GET", path: "/tasks/{id}", tags, summary: "One import task: status, progress, message, error, note_id" } })
    .input(s.taskIdInput)
    .output(s.taskSchema)
    .query(({ ctx, input }) => getTask({ ctx, input })),
});
