DROP INDEX `graph_nodes_user_weight_idx`;--> statement-breakpoint
CREATE INDEX `graph_nodes_user_weight_idx` ON `graph_nodes` (`user_id`,"weight" desc,`id`,`hidden`);