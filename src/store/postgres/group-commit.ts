/**
 * Group commit: jobs submitted while a commit is under way, or in the same tick, are handed to
 * the next commit together, so that many small appends (of one session or of many) cost one
 * transaction. Each submitter gets only its own result; a failed commit rejects every job it
 * carried. Commits run one at a time, in submission order.
 */
export class GroupCommit<Job, Result> {
  readonly #commit: (jobs: readonly Job[]) => Promise<Result[]>;
  #pending: { job: Job; resolve(result: Result): void; reject(error: unknown): void }[] = [];
  #running: Promise<void> | undefined;
  #scheduled = false;
  #last: Promise<void> = Promise.resolve();

  /** `commit` writes the jobs in one transaction and gives one result per job, in order. */
  constructor(commit: (jobs: readonly Job[]) => Promise<Result[]>) {
    this.#commit = commit;
  }

  submit(job: Job): Promise<Result> {
    const result = new Promise<Result>((resolve, reject) => {
      this.#pending.push({ job, resolve, reject });
      if (this.#running === undefined && !this.#scheduled) {
        this.#scheduled = true;
        // A microtask, not a timer: the batch closes when this tick's submitters are in.
        queueMicrotask(() => this.#start());
      }
    });
    // Commits run in submission order: once this job is settled, every earlier one is.
    this.#last = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /**
   * Resolves once every job submitted so far is committed (or failed); jobs submitted after
   * the call are not waited for, so a steady stream of appends cannot hold it forever.
   */
  drain(): Promise<void> {
    return this.#last;
  }

  #start(): void {
    this.#scheduled = false;
    if (this.#running !== undefined) return;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.#running = (async () => {
      try {
        const results = await this.#commit(batch.map((entry) => entry.job));
        for (const [index, entry] of batch.entries()) entry.resolve(results[index] as Result);
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      } finally {
        this.#running = undefined;
        // What arrived during this commit is the next batch.
        if (this.#pending.length > 0) this.#start();
      }
    })();
  }
}
