import type { jobs } from "../schema.ts";

export type JobRow = typeof jobs.$inferSelect;
export type JobStatus = JobRow["status"];
export type JobRecordError = NonNullable<JobRow["error"]>;
