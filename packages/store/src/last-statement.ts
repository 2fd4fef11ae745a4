/**
 * Marks a statement as the last of its transaction. On Postgres the
 * store's connections send a statement whose text starts with this together
 * with the transaction's `commit`, in one message: one round trip fewer per
 * write. The caller promises that nothing else runs in the transaction
 * after it (the commit has happened by the time the statement's result
 * arrives); a durable change bus uses it for its `record` when the store
 * says the call is the last (`RecordOptions.last`). Elsewhere it is only a
 * comment.
 */
export const COMMIT_WITH_THIS = "/* svc: commit with this */ ";

/** Options the store passes to `ChangeBus.record`. */
export interface RecordOptions {
  /**
   * Nothing else runs in the transaction after this call returns but its
   * commit: the bus may start its last statement with `COMMIT_WITH_THIS`.
   */
  readonly last?: boolean;
}
