import type { ChangeEventOutlet } from "../events/change";
import { requestEmbedding, type SemanticSettings } from "./semantic-search";

/**
 * Search by meaning's outlet of change events: a note created, edited or deleted by any writer that
 * publishes (the API, MCP, a platform import, a transcript, a restore from the trash) queues its
 * user's embedding job, so it is searchable by meaning within seconds; so does a finished import
 * task, for an archive import's notes (which send no note events of their own), and a finished graph
 * build, for its concepts (merge suggestions read their label vectors). The sweep each minute is the
 * backstop for writers that publish nothing.
 */
export function createEmbeddingOutlet(semantic: SemanticSettings): ChangeEventOutlet {
  return {
    name: "search by meaning",
    async emit(userId, event) {
      if (event.type.startsWith("note.") || event.type === "task.completed" || event.type === "graph.build.completed") requestEmbedding(semantic, userId);
    },
  };
}
