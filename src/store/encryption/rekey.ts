/**
 * `ocb store rekey`: every event body and title of an encrypted store sealed again with the
 * keyring's newest key, a batch per transaction, so that the old keys can then be dropped. The
 * walk is resumable: a run that stops half-way leaves each row whole (under its old key or its
 * new one), and the next run skips the rows already under the newest key. Both stores give the
 * same three steps (`Rekeyable`); the order and the checks are here, once.
 */
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Store } from "../store.js";
import type { EventRow, RowCodec } from "./row-codec.js";

/** What a store gives `rekeyStore`. */
export interface Rekeyable {
  readonly description: string;
  readonly codec: RowCodec;
  /**
   * Seals again, in one transaction, up to `limit` event rows after `after` (where the last
   * batch stopped; undefined: from the start) that are not under the newest key.
   */
  rekeyEvents(after: string | undefined, limit: number): Promise<RekeyedBatch>;
  /** Seals again every title not under the newest key, in one transaction; gives how many. */
  rekeyTitles(): Promise<number>;
  /**
   * When no event or title needs another key than the newest, forgets the other keys'
   * checks, and gives their ids; otherwise forgets nothing and gives `undefined`.
   */
  dropOldKeyChecks(): Promise<string[] | undefined>;
}

export interface RekeyedBatch {
  rekeyed: number;
  /** Where the walk goes on; undefined: it is done. */
  next: string | undefined;
}

export interface RekeyProgress {
  events: number;
  titles: number;
}

export interface RekeySummary extends RekeyProgress {
  /** The key every row is under now. */
  keyId: string;
  /** The keys no row needs any more (their checks dropped): they may go from the keyring. */
  dropped: string[];
}

/** The event of `row`, sealed again with `codec`'s newest key. */
export function resealEvent(codec: RowCodec, row: EventRow, where: string): string {
  const event: CanonicalEvent = codec.openEvent(row, where);
  return codec.sealEvent(event);
}

/** Re-encrypts every event and title of `store` with its newest key (see the module comment). */
export async function rekeyStore(
  store: Store,
  options: { batch?: number; progress?: (done: RekeyProgress) => void } = {},
): Promise<RekeySummary> {
  if (!isRekeyable(store)) {
    throw new UsageError(`the transcript store ${store.description} cannot be re-keyed`);
  }
  const keyId = store.codec.writeKeyId;
  if (keyId === undefined) {
    throw new UsageError(
      `the transcript store ${store.description} is not encrypted, or was opened without its ` +
        "key: give its keys (newest first) in OCB_STORE_KEY or --store-key-file",
    );
  }
  const batch = options.batch ?? 1000;
  const done: RekeyProgress = { events: 0, titles: 0 };
  let after: string | undefined;
  do {
    const result = await store.rekeyEvents(after, batch);
    done.events += result.rekeyed;
    after = result.next;
    options.progress?.({ ...done });
  } while (after !== undefined);
  done.titles = await store.rekeyTitles();
  options.progress?.({ ...done });
  const dropped = await store.dropOldKeyChecks();
  if (dropped === undefined) {
    // Written meanwhile by a process whose newest key is another: say so rather than drop.
    throw new UsageError(
      `the transcript store ${store.description} still holds rows under another key than ` +
        `${keyId} after the rekey: a process with another newest key wrote meanwhile; give ` +
        "every process the same keys, newest first, and run ocb store rekey again",
    );
  }
  return { ...done, keyId, dropped };
}

function isRekeyable(store: Store): store is Store & Rekeyable {
  const candidate = store as Partial<Rekeyable>;
  return (
    typeof candidate.rekeyEvents === "function" &&
    typeof candidate.rekeyTitles === "function" &&
    typeof candidate.dropOldKeyChecks === "function" &&
    candidate.codec !== undefined
  );
}
