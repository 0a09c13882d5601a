import { startGraphBuild } from "./start-build";
import { getBuildRecord, listBuilds } from "./build-records";
import { mergeGraphNodes, updateGraphNode } from "./curate-nodes";
import { getBuildStatus } from "./get-build-status";
import { getGraph } from "./get-graph";
import { getGraphNode } from "./get-graph-node";
import * as read from "./read-schemas";
import * as s from "./schemas";
import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/procedures";

const tags = ["knowledge-graph"];

export const graphRouter = router({
  build: protectedProcedure
    .meta({ access: "graph:write",
      openapi: {
        method: "POST",
        path: "/knowledge-graph/build",
        tags,
        summary: "Start building the graph in the background (409 while one is queued or running), or estimate a build",
        description:
          "`incremental` (default) extracts only notes that are new, changed or extracted by an older extractor, model or prompt version, and applies only their difference to the graph; `full` re-extracts every note. Answers 202 with the build status; follow it at GET /api/knowledge-graph/status. With `dry_run: true` it answers **200** with a `GraphBuildEstimate` (what would be extracted and removed, and the calls and tokens it would cost) and starts nothing. `max_llm_calls` and `max_input_tokens` cap the build: no call that would pass a cap is started, and the build ends `completed` with `budget_exhausted: true`; the next incremental build goes on with the notes left.",
      },
      successStatus: 202,
      alsoOk: "With `dry_run: true`: the estimate (GraphBuildEstimate); nothing is started",
    })
    .input(s.buildInput)
    .output(s.buildResultSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await startGraphBuild({ ctx, input });
      if (input.dry_run && ctx.response) ctx.response.status = 200;
      return result;
    }),

  status: protectedProcedure
    .meta({ access: "graph:read", openapi: { method: "GET", path: "/knowledge-graph/status", tags, summary: "The latest build's status and progress" } })
    .input(z.void())
    .output(s.buildStatusSchema)
    .query(({ ctx }) => getBuildStatus({ ctx })),

  builds: protectedProcedure
    .meta({ access: "graph:read", openapi: { method: "GET", path: "/knowledge-graph/builds", tags, summary: "The user's builds, newest first, with their usage and changes" } })
    .input(s.listBuildsInput)
    .output(s.buildPageSchema)
    .query(({ ctx, input }) => listBuilds({ ctx, input })),

  buildRecord: protectedProcedure
    .meta({ access: "graph:read",
      openapi: { method: "GET", path: "/knowledge-graph/builds/{id}", tags, summary: "One build's record with the concepts it added, removed and merged" },
    })
    .input(s.buildIdInput)
    .output(s.buildRecordDetailSchema)
    .query(({ ctx, input }) => getBuildRecord({ ctx, input })),

  get: protectedProcedure
    .meta({ access: "graph:read",
      openapi: {
        method: "GET",
        path: "/knowledge-graph",
        tags,
        summary: "Nodes and edges for rendering: the heaviest nodes, those matching q, or one node's neighbourhood",
      },
    })
    .input(read.getGraphInput)
    .output(read.graphSchema)
    .query(({ ctx, input }) => getGraph({ ctx, input })),

  node: protectedProcedure
    .meta({ access: "graph:read",
      openapi: { method: "GET", path: "/knowledge-graph/nodes/{id}", tags, summary: "A node, its neighbours, and the notes (with passages) that mention it" },
    })
    .input(read.graphNodeIdInput)
    .output(read.graphNodeDetailSchema)
    .query(({ ctx, input }) => getGraphNode({ ctx, input })),

  updateNode: protectedProcedure
    .meta({ access: "graph:write",
      openapi: {
        method: "PATCH",
        path: "/knowledge-graph/nodes/{id}",
        tags,
        summary: "Rename, retype, describe or hide a node; kept across every later build",
        description: "Stored as a rule on the node's concept key, so every later build (full ones included) applies it. A new label keeps the old one as an alias.",
      },
    })
    .input(read.updateNodeInput)
    .output(read.graphNodeSchema)
    .mutation(({ ctx, input }) => updateGraphNode({ ctx, input })),

  mergeNodes: protectedProcedure
    .meta({ access: "graph:write",
      openapi: {
        method: "POST",
        path: "/knowledge-graph/nodes/{id}/merge",
        tags,
        summary: "Merge nodes into this one; kept across every later build",
        description:
          "The merged nodes disappear; this node takes their mentions, notes and edges, and their labels become its aliases. Stored as rules on concept keys, so every later build (full ones included) merges them again.",
      },
    })
    .input(read.mergeNodesInput)
    .output(read.mergedNodeSchema)
    .mutation(({ ctx, input }) => mergeGraphNodes({ ctx, input })),
});
