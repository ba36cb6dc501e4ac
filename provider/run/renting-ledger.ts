import { setTimeout as sleep } from "node:timers/promises";

function signal(): { promise: Promise<void>; fire: () => void } {
  let fire = () => {};
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

/**
 * What the creates of one run that rent instances (every Instance, every node of a NodeGroup)
 * share: the asks they have claimed, the rents in flight, and the instances the stack records.
 */
export class RentingLedger {
  /**
   * Asks that creates of this run have chosen and not finished with. Instances declared with
   * one query search at about the same moment and would all pick the same best offer, which the
   * service rents once: all but one would spend an attempt on a refusal (10 instances of one
   * query, 3 attempts each: 3 or 4 of them failed). Each create claims the offer it chooses
   * until it ends (renting/offer-choice.ts); the others choose among the rest.
   */
  readonly asksBeingRented = new Set<number>();

  /**
   * Rent requests in flight, and a signal each time one returns. When every offer a search
   * answers is claimed (a query's `limit` smaller than the instances sharing it), the offers
   * beyond it show once those rents land: the service no longer offers what it rented.
   */
  #rentsInFlight = 0;
  #rentReturned = signal();

  /**
   * Instances the stack records and that a create or a sweep must leave alone, by owner: the
   * instance a replacement replaces (its diff runs in this run before the create of the new
   * one), and each instance this run created. The engine is the only record of what the stack
   * holds; this is what of it the run has seen.
   */
  readonly #recordedByOwner = new Map<string, Set<number>>();

  /**
   * Instances this run's creates rented or adopted: they carry the stack's being-created label
   * until they are handed over, as a leftover does, and no sweep of the run may take them.
   */
  readonly #rentedThisRun = new Set<number>();

  get rentsInFlight(): number {
    return this.#rentsInFlight;
  }

  /** Resolves when the next rent request of the run returns. */
  nextRentReturned(): Promise<void> {
    return this.#rentReturned.promise;
  }

  /** Runs one rent request, so that creates waiting for an offer search again when it returns. */
  async renting<T>(rent: () => Promise<T>): Promise<T> {
    this.#rentsInFlight++;
    try {
      return await rent();
    } finally {
      this.#rentsInFlight--;
      const returned = this.#rentReturned;
      this.#rentReturned = signal();
      returned.fire();
    }
  }

  /**
   * Resolves once no rent request of the run is in flight, or after `timeoutMs`: a rent sent
   * before the engine went away lands after, and its instance must be destroyed too.
   */
  async rentsSettled(timeoutMs: number): Promise<void> {
    const deadlineMs = Date.now() + timeoutMs;
    while (this.#rentsInFlight > 0 && Date.now() < deadlineMs) {
      await Promise.race([
        this.#rentReturned.promise,
        sleep(deadlineMs - Date.now(), undefined, { ref: false }),
      ]);
    }
  }

  rememberRented(instanceId: number): void {
    this.#rentedThisRun.add(instanceId);
  }

  isRentedThisRun(instanceId: number): boolean {
    return this.#rentedThisRun.has(instanceId);
  }

  rememberRecorded(owner: string | undefined, instanceId: number): void {
    if (owner === undefined) return;
    const ids = this.#recordedByOwner.get(owner) ?? new Set<number>();
    ids.add(instanceId);
    this.#recordedByOwner.set(owner, ids);
  }

  isRecorded(owner: string, instanceId: number): boolean {
    return this.#recordedByOwner.get(owner)?.has(instanceId) ?? false;
  }

  /**
   * Whether the program declared the stack's sweeper before the instances it checked, and
   * whether the run has said it did not: a YAML program declares it by hand, and without it an
   * `up` killed while an instance boots leaves the instance billing after `pulumi destroy`.
   */
  #sweeperDeclared = false;
  #toldOfNoSweeper = false;

  rememberSweeperDeclared(): void {
    this.#sweeperDeclared = true;
  }

  /** True once, for the run's first Instance or NodeGroup checked with no sweeper before it. */
  shouldTellOfNoSweeper(): boolean {
    if (this.#sweeperDeclared || this.#toldOfNoSweeper) return false;
    this.#toldOfNoSweeper = true;
    return true;
  }
}
