// The stack's cap at `up` (`gpucloud:maxDollarsPerHour`): what the stack runs, what the run's
// creates have reserved, and the refusal of a rent that would take the stack over the cap.
// docs/guides/costs.md ("The stack's cap at up") says what users get.

/** What the stack already runs, as the account shows it: one entry per billable thing. */
export interface Running {
  /** A key no two billable things share (`instance:<id>`, `volume:<id>`). */
  readonly key: string;
  /** $/hour, as the service reports it. */
  readonly dollarsPerHour: number;
}

/** A create that the cap refuses: nothing was sent. Not a dead end to retry with another offer. */
export class OverBudgetError extends Error {}

/** The price of a create, held against the cap until it is sent and lands, or fails. */
export class Reservation {
  #dollarsPerHour: number;
  #open = true;

  constructor(
    dollarsPerHour: number,
    /** Counts what landed as running (the budget's). */
    private readonly onLanded: (entry: Running) => void,
    /** Forgets the reservation (the budget's). */
    private readonly onEnd: (reservation: Reservation) => void,
  ) {
    this.#dollarsPerHour = dollarsPerHour;
  }

  /** What it holds now, $/hour: nothing once it has landed or been released. */
  get dollarsPerHour(): number {
    return this.#open ? this.#dollarsPerHour : 0;
  }

  /** Takes `dollarsPerHour` (at most what it holds) out of this hold: a group's, for a node. */
  draw(dollarsPerHour: number): void {
    this.#dollarsPerHour -= Math.min(this.dollarsPerHour, dollarsPerHour);
  }

  /** What was reserved now runs under `key`: it counts at the same price until it is gone. */
  landed(key: string): void {
    if (!this.#open) return;
    this.onLanded({ key, dollarsPerHour: this.#dollarsPerHour });
    this.release();
  }

  /** The create failed or ended: what it held is free again. Idempotent. */
  release(): void {
    this.#open = false;
    this.onEnd(this);
  }
}

/** One stack's spending in this run: what runs (read once from the account) and what is held. */
class StackSpend {
  readonly runningByKey = new Map<string, number>();
  /** Keys this run saw gone: a read that lands after the destroy must not count them. */
  readonly gone = new Set<string>();
  readonly reservations = new Set<Reservation>();
  /** The account's read, once; undefined until the first reservation asks for it. */
  read: Promise<void> | undefined;

  get total(): number {
    let total = 0;
    for (const price of this.runningByKey.values()) total += price;
    for (const reservation of this.reservations) total += reservation.dollarsPerHour;
    return total;
  }
}

/** What a reservation is for, as the refusal names it. */
export interface ReservationRequest {
  /** The stack's identity (its token); undefined for a create outside any stack. */
  readonly stack: string | undefined;
  /** What the stack already runs: read from the account once per run and stack. */
  readonly readRunning: () => Promise<readonly Running[]>;
  /** The resource's name, which the refusal leads with. */
  readonly name: string;
  /** What is to be rented, for the refusal: "ask 40012". */
  readonly what: string;
  readonly dollarsPerHour: number;
  /** A hold the price is drawn from first (a group's, reserved for all its nodes). */
  readonly from?: Reservation | undefined;
}

/**
 * A price for a message: cents, and up to four decimals where they matter (a small volume costs
 * fractions of a cent per hour): $0.35, $2.80, $0.3503.
 */
export const dollars = (value: number) => `$${value.toFixed(4).replace(/0{1,2}$/, "")}`;

/**
 * The run's budget: one per run (provider/run/run.ts), shared by every create that rents.
 * Without a cap it holds nothing and reads nothing.
 */
export class Budget {
  readonly #stacks = new Map<string, StackSpend>();

  constructor(private readonly cap: () => number | undefined) {}

  /** The cap, $/hour; undefined when none is set. */
  get maxDollarsPerHour(): number | undefined {
    return this.cap();
  }

  #spendOf(stack: string | undefined): StackSpend {
    const key = stack ?? "";
    let spend = this.#stacks.get(key);
    if (spend === undefined) {
      spend = new StackSpend();
      this.#stacks.set(key, spend);
    }
    return spend;
  }

  /**
   * Holds `dollarsPerHour` against the cap, or throws an OverBudgetError when the stack's
   * running total, what other creates hold, and this would exceed it. The account is read
   * first (once per run and stack: every reservation waits for the same read); the check and
   * the hold then happen together, with no await between them, so that creates running in
   * parallel each see the others' holds. Undefined when no cap is set: nothing is held.
   */
  async reserve(request: ReservationRequest): Promise<Reservation | undefined> {
    const cap = this.cap();
    if (cap === undefined) return undefined;
    const spend = this.#spendOf(request.stack);
    spend.read ??= this.#readInto(spend, request.readRunning);
    await spend.read;
    // A node of a group spends the group's hold first; only what exceeds it is new.
    const drawable = Math.min(request.from?.dollarsPerHour ?? 0, request.dollarsPerHour);
    const beyond = request.dollarsPerHour - drawable;
    const total = spend.total;
    if (beyond > 0 && total + beyond > cap + 1e-9) {
      throw new OverBudgetError(refusal(request, total - drawable, cap));
    }
    request.from?.draw(drawable);
    const stack = request.stack ?? "";
    const reservation = new Reservation(
      request.dollarsPerHour,
      (entry) => {
        this.running(stack, entry);
      },
      (ended) => spend.reservations.delete(ended),
    );
    spend.reservations.add(reservation);
    return reservation;
  }

  async #readInto(spend: StackSpend, read: () => Promise<readonly Running[]>): Promise<void> {
    try {
      for (const entry of await read()) {
        if (!spend.gone.has(entry.key)) spend.runningByKey.set(entry.key, entry.dollarsPerHour);
      }
    } catch (error) {
      // A failed read is not kept: the next reservation reads again.
      spend.read = undefined;
      throw error;
    }
  }

  /** Counts a billable thing the stack now runs (a reservation that landed). */
  running(stack: string, entry: Running): void {
    const spend = this.#spendOf(stack);
    spend.gone.delete(entry.key);
    spend.runningByKey.set(entry.key, entry.dollarsPerHour);
  }

  /** The service now reports this price for what runs under `key`: it counts from now on. */
  repriced(key: string, dollarsPerHour: number): void {
    for (const spend of this.#stacks.values()) {
      if (spend.runningByKey.has(key)) spend.runningByKey.set(key, dollarsPerHour);
    }
  }

  /** A destroy of this run confirmed `key` gone: the stack's total drops by its price. */
  gone(key: string): void {
    for (const spend of this.#stacks.values()) {
      spend.runningByKey.delete(key);
      spend.gone.add(key);
    }
  }

  /** The stack's running total and holds now, $/hour (for tests and messages). */
  totalOf(stack: string | undefined): number {
    return this.#stacks.get(stack ?? "")?.total ?? 0;
  }
}

/** The one-line refusal: the price, the stack's total, the cap, and how to raise it. */
function refusal(request: ReservationRequest, total: number, cap: number): string {
  const after = total + request.dollarsPerHour;
  return (
    `${request.name}: renting ${request.what} at ${dollars(request.dollarsPerHour)}/h would ` +
    `take the stack to ${dollars(after)}/h, over its cap gpucloud:maxDollarsPerHour ` +
    `${dollars(cap)}/h (the stack runs or is renting ${dollars(total)}/h, counting an ` +
    `instance a replacement replaces until it is deleted: deleteBeforeReplace avoids that); ` +
    `nothing was rented. To raise the cap: pulumi config set gpucloud:maxDollarsPerHour ` +
    `${Math.ceil(after * 100) / 100}`
  );
}
