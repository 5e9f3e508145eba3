/**
 * The fixed sentences stored as `error.message` on FAILED records and shown to clients. A raw
 * exception message never reaches a record. Handlers add their own codes through
 * `errorMessages` in their registration.
 *
 * Job error codes come in three spellings, each the one a client already reads in the spec, so
 * none is respelled: the job system's own (below, and `PROVISIONING_FAILED` alike: upper snake
 * case, spec/provisioning.md §2), registry codes a job shares with its synchronous endpoint
 * (`subworkspaceCreationTimeout`: camel case, spec/api.md §2), and `chained_job_enqueue_failed`
 * (lower snake case, as spec/provisioning.md §5 names it).
 */
export const JOB_ERROR_MESSAGES: Record<string, string> = {
  JOB_FAILED: "The job failed.",
  JOB_STALLED: "The job stopped making progress and was abandoned.",
  JOB_TIMEOUT: "The job did not finish in time.",
  INVALID_JOB_METADATA: "The job was stored with invalid parameters.",
  // Only on records failed by earlier versions: a worker now leaves an unknown type to another.
  UNKNOWN_JOB_TYPE: "This kind of job is not supported by the workers.",
  NEEDS_REAUTH: "Your sign-in expired before the job could finish; sign in again and resume it.",
};

export const GENERIC_JOB_FAILURE = JOB_ERROR_MESSAGES.JOB_FAILED!;
