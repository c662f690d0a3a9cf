import type { Db } from '../db/database.js';
import { insertExecutionsQuery, type NewExecution } from '../repositories/executions.js';
import { QUEUES, type Queue } from './queue.js';
import { groupTriggerJobs, type TriggerJob } from './trigger-jobs.js';

/**
 * Writes the plain trigger batches of concurrent requests together (docs/engine.md, "Triggers"):
 * a batch that arrives while WRITES_IN_FLIGHT statements are already on their way waits for the
 * next one, which carries every batch that waited, its executions and their trigger jobs in one
 * statement and one commit, their jobs gathered into trigger jobs of a group of executions each
 * (engine/trigger-jobs.ts). A request is answered only once its own rows are committed, so a 202
 * is as durable as when each request wrote alone; a lone request on an idle server is written at
 * once. Under load this is one round trip, one commit and one WAL flush per group instead of per
 * request: what bounded trigger accept (BENCHMARKS.md, "Trigger accept").
 *
 * A group whose statement fails is written again batch by batch, so one batch's failure (its
 * workspace deleted meanwhile) is that batch's alone.
 *
 * On embedded storage a statement is never "on its way": PGlite runs it on this thread as soon as it
 * is sent, so each request's write would be over before the next request is read and every trigger
 * paid its own statement and commit. There a write goes out at the end of the event loop's turn
 * (`setImmediate`), carrying every request read in that turn; a lone request waits for nothing but
 * the rest of its own turn (BENCHMARKS.md, "Embedded engine").
 */

interface PendingWrite {
  executions: (NewExecution & { workspace_id: number })[];
  jobs: TriggerJob[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Statements in flight at once: one being committed while the next group gathers and goes out. */
const WRITES_IN_FLIGHT = 2;
/** The most executions one statement carries (a group is cut at a batch's edge past this). */
const MAX_GROUP_EXECUTIONS = 500;
/**
 * As this module found it: a test that fakes timers afterwards (herald/testing in a customer's suite,
 * vi.useFakeTimers) must not hold every trigger's write back until it runs them.
 */
const endOfTurn = globalThis.setImmediate;

export class TriggerWriter {
  private readonly waiting: PendingWrite[] = [];
  private inFlight = 0;
  /** Embedded storage: writes go out at the end of the event loop's turn, gathered. */
  private readonly atEndOfTurn: boolean;
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
  ) {
    this.atEndOfTurn = queue.database.pglite !== undefined;
  }

  /** Resolves once these executions and their jobs are committed; the workers are then woken. */
  write(executions: (NewExecution & { workspace_id: number })[], jobs: TriggerJob[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ executions, jobs, resolve, reject });
      if (!this.atEndOfTurn) this.next();
      else if (!this.scheduled) {
        this.scheduled = true;
        endOfTurn(() => {
          this.scheduled = false;
          this.next();
        });
      }
    });
  }

  private next() {
    if (this.inFlight >= WRITES_IN_FLIGHT || this.waiting.length === 0) return;
    let count = 0;
    let take = 0;
    while (
      take < this.waiting.length &&
      (take === 0 || count + this.waiting[take]!.executions.length <= MAX_GROUP_EXECUTIONS)
    )
      count += this.waiting[take++]!.executions.length;
    const group = this.waiting.splice(0, take);
    this.inFlight += 1;
    void this.send(group, count).finally(() => {
      this.inFlight -= 1;
      this.next();
    });
  }

  /** Writes the group (`executions` in all), then wakes the trigger queue with that count. */
  private async send(group: PendingWrite[], executions: number) {
    try {
      await this.insert(group);
      for (const pending of group) pending.resolve();
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      else await Promise.all(group.map((pending) => this.insert([pending]).then(pending.resolve, pending.reject)));
    }
    this.queue.wake(this.db, QUEUES.trigger, executions);
  }

  private insert(group: PendingWrite[]) {
    return this.queue.sendManyWith(
      this.db,
      QUEUES.trigger,
      groupTriggerJobs(group.flatMap((pending) => pending.jobs)),
      insertExecutionsQuery(
        this.db,
        group.flatMap((pending) => pending.executions),
      ),
    );
  }
}

const writers = new WeakMap<Queue, WeakMap<Db, TriggerWriter>>();

/** The writer of plain trigger batches for this queue and database (one per app). */
export function triggerWriterOf(db: Db, queue: Queue): TriggerWriter {
  let byDb = writers.get(queue);
  if (!byDb) writers.set(queue, (byDb = new WeakMap()));
  let writer = byDb.get(db);
  if (!writer) byDb.set(db, (writer = new TriggerWriter(db, queue)));
  return writer;
}
