-- contract-step: since 0026_fold_write_entries_only no release writes or reads these three tables (their facts live on the entries of resource_observations), and a process of any older release refuses this schema
-- compatible-code-from: 0026_fold_write_entries_only
-- The fold's fourth and last release (docs/decisions/0049): the tables the entries of the resources
-- record replaced are dropped. Only the code of 0026 on runs beside this schema while the deploy
-- rolls (docs/decisions/0032, 0038): that code touches none of them.
DROP TABLE "allocation_publishes";--> statement-breakpoint
DROP TABLE "model_set_changes";--> statement-breakpoint
DROP TABLE "pool_free_bounds";
