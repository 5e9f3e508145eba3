-- The fold's third release (docs/decisions/0048): from this release on nothing writes the three
-- tables the entries of the resources record replaced; the release before it, still running beside
-- it while a deploy rolls, writes them and reads the entries, so nothing reads them any more. This
-- step changes no data: it marks the tables as left behind, and it is the migration only code that
-- no longer writes them knows, which the contract step that drops them names as its
-- `compatible-code-from` (a process of the release before this one refuses that schema).
COMMENT ON TABLE "allocation_publishes" IS 'Not written since 0026_fold_write_entries_only: a publish lives on the workspace''s entry of resource_observations. Dropped by the next contract step.';
--> statement-breakpoint
COMMENT ON TABLE "model_set_changes" IS 'Not written since 0026_fold_write_entries_only: a model add''s announcement lives on the workspace''s entry of resource_observations. Dropped by the next contract step.';
--> statement-breakpoint
COMMENT ON TABLE "pool_free_bounds" IS 'Not written since 0026_fold_write_entries_only: the pool''s bounds and lowerings live on the parent''s entry of resource_observations. Dropped by the next contract step.';
