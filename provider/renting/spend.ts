import { environmentOf } from "../client";
import type { Reservation, Running } from "../run/budget";
import type { Run } from "../run/run";
import { stackTokenVariable } from "./identity";
import type { InstanceInputs } from "./instance-inputs";

// What an instance's rent holds against the stack's cap (run/budget.ts): its price, as the
// service quotes it for the instance's disk, and what the stack already runs, as the account
// shows it. Nothing is read or held without a cap.

/** The budget's key for an instance. */
export const instanceKey = (instanceId: number) => `instance:${instanceId}`;

/**
 * The instances the account shows with this stack's token (identity.ts: the env marker set at
 * rent, which no other stack carries), at the price the service reports for each. Instances
 * without the token (rented outside any stack, or by another stack) are never counted.
 */
export async function stackInstancesRunning(
  run: Run,
  stackToken: string | undefined,
): Promise<Running[]> {
  const prices = await stackInstancePrices(run, stackToken);
  return [...prices].map(([id, dollarsPerHour]) => ({ key: instanceKey(id), dollarsPerHour }));
}

/** The same, by instance id: what the plan's cap counts as running (pricing/plan.ts). */
export async function stackInstancePrices(
  run: Run,
  stackToken: string | undefined,
): Promise<Map<number, number>> {
  if (stackToken === undefined) return new Map();
  const instances = await run.client.instances.list();
  return new Map(
    instances
      .filter((instance) => environmentOf(instance)[stackTokenVariable] === stackToken)
      .map((instance) => [instance.id, instance.dph_total ?? 0]),
  );
}

/** What the plan's cap reads of the stack's instances (pricing/plan.ts StackRunning). */
export const stackRunningOf = (run: Run, stackToken: string | undefined) => ({
  stack: stackToken,
  read: () => stackInstancePrices(run, stackToken),
});

/**
 * What renting `askId` costs, $/hour, as the offer search quotes it for the instance's disk
 * (`allocated_storage`: the ask's listed price includes the service's default storage, and an
 * instance with another disk costs accordingly); an interruptible instance counts its bid when
 * that is higher. Undefined when the search no longer answers the ask (rented meanwhile).
 */
export async function priceOfRent(
  run: Run,
  askId: number,
  inputs: Pick<InstanceInputs, "diskGb" | "price">,
  stop: AbortSignal,
): Promise<number | undefined> {
  const [row] = await run.client.instances.searchOffers(
    {
      id: { eq: askId },
      ...(inputs.diskGb === undefined ? {} : { allocated_storage: inputs.diskGb }),
    },
    stop,
  );
  const quoted = row?.dph_total ?? undefined;
  if (quoted === undefined) return undefined;
  return Math.max(quoted, inputs.price ?? 0);
}

/** What a rent asks the budget for. */
export interface RentHold {
  readonly name: string;
  readonly askId: number;
  readonly inputs: Pick<InstanceInputs, "diskGb" | "price" | "stackToken">;
  /** The offer's price, when the search that chose it answered one (by query). */
  readonly offerDollarsPerHour?: number | undefined;
  /** A group's hold, which a node spends first. */
  readonly from?: Reservation | undefined;
  readonly stop: AbortSignal;
}

/**
 * Holds the rent's price against the stack's cap before it is sent, or throws the budget's
 * one-line refusal (run/budget.ts OverBudgetError): the rent is then never sent. Undefined
 * without a cap; "unpriced" when no search answers the ask's price (the search no longer
 * offers it): the rent is not sent either, since what it would cost cannot be held.
 */
export async function reserveRent(
  run: Run,
  hold: RentHold,
): Promise<Reservation | undefined | "unpriced"> {
  if (run.budget.maxDollarsPerHour === undefined) return undefined;
  const price =
    (await priceOfRent(run, hold.askId, hold.inputs, hold.stop)) ?? hold.offerDollarsPerHour;
  if (price === undefined) return "unpriced";
  return run.budget.reserve({
    stack: hold.inputs.stackToken,
    readRunning: () => stackInstancesRunning(run, hold.inputs.stackToken),
    name: hold.name,
    what: `ask ${hold.askId}`,
    dollarsPerHour: price,
    from: hold.from,
  });
}
