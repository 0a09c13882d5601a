import { startGraphBuild } from "./start-build";
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
    .meta({
      openapi: {
        method: "POST",
        path: "/knowledge-graph/build",
        tags,
        summary: "Start building the graph in the background (409 while one is queued or running)",
        description:
          "`incremental` (default) extracts only notes that are new or changed since their last extraction and removes what deleted notes contributed; `full` re-extracts every note. Follow it at GET /api/knowledge-graph/status.",
      },
      successStatus: 202,
    })
    .input(s.buildInput)
    .output(s.buildStatusSchema)
    .mutation(({ ctx, input }) => startGraphBuild({ ctx, input })),

  status: protectedProcedure
    .meta({ openapi: { method: "GET", path: "/knowledge-graph/status", tags, summary: "The latest build's status and progress" } })
    .input(z.void())
    .output(s.buildStatusSchema)
    .query(({ ctx }) => getBuildStatus({ ctx })),

  get: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/knowledge-graph",
        tags,
        summary: "Nodes and edges for rendering: the heaviest nodes, or one node's neighbourhood",
      },
    })
    .input(read.getGraphInput)
    .output(read.graphSchema)
    .query(({ ctx, input }) => getGraph({ ctx, input })),

  node: protectedProcedure
    .meta({
      openapi: { method: "GET", path: "/knowledge-graph/nodes/{id}", tags, summary: "A node, its neighbours, and the notes (with passages) that mention it" },
    })
    .input(read.graphNodeIdInput)
    .output(read.graphNodeDetailSchema)
    .query(({ ctx, input }) => getGraphNode({ ctx, input })),
});
