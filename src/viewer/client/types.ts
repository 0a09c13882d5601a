// The API shapes the page reads (CONTRACT.md "Knowledge graph", "Notes", "Live progress").

export interface GraphNode {
  id: number;
  label: string;
  type: string;
  description: string;
  weight: number;
  degree: number;
  community: number;
  note_ids: number[];
  /** Other names of the concept; not every server sends them. */
  aliases?: string[];
}

export interface GraphEdge {
  id: number;
  source: number;
  target: number;
  label: string;
  weight: number;
  note_ids: number[];
}

export interface GraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
  stats: { nodes: number; edges: number; total_nodes: number; total_edges: number; communities: number };
}

export interface NodeDetail {
  node: GraphNode;
  neighbours: GraphNode[];
  edges: GraphEdge[];
  notes: { id: number; title: string; excerpt: string }[];
}

export interface BuildStatus {
  status: "idle" | "building" | "completed" | "failed";
  progress: number;
  message: string | null;
  mode: string | null;
  build_id: number | null;
  notes_total: number;
  notes_processed: number;
  nodes: number;
  edges: number;
  error: string | null;
  usage: { llm_calls: number; input_tokens: number; output_tokens: number };
}

export interface Note {
  id: number;
  title: string;
  content: string;
  tags: string[];
  updated_at: string;
}

export interface User {
  id: number;
  username: string;
}

export interface TokenAnswer {
  access_token: string;
  totp_required: boolean;
}
