import type * as pulumi from "@pulumi/pulumi";
import { GpuCloudError, type Instance as InstanceWire } from "../client";
import { dollars } from "../pricing/formulas";
import type { Run } from "../run/run";
import { atServicePrecision } from "../shared/price-precision";
import { fieldFailure } from "../shared/validation";
import { InstanceLeftBehindError } from "./errors";
import { resourceNameOf } from "./identity";
import type { InstanceInputs, InstanceOutputs } from "./instance-inputs";
import { discountedTotal } from "./instance-shown";
import { instanceKey } from "./spend";

// `prepayDollars` (prepay-inputs.ts): a reserved instance. The deposit is made once the
// instance runs, as the service converts an on-demand instance (its reserved-instances guide:
// rent on-demand, then prepay); a higher amount later deposits the difference in place. A
// deposit moves money: it is never sent twice for one amount. A failed one is looked for in the
// instance's `credit_balance` before anything is said or recorded: landed, it counts as made.

type Created = { id: string; outs: InstanceOutputs };

/** The check's failures of `prepayDollars`: on-demand only, within the account's credit. */
export async function prepayFailures(
  run: Run,
  olds: Partial<InstanceOutputs>,
  inputs: InstanceInputs,
): Promise<pulumi.dynamic.CheckFailure[]> {
  if (inputs.prepayDollars === undefined) return [];
  // Reserved instances are on-demand ones converted by a deposit (the service's instance-types
  // guide); an interruptible instance's type never changes once rented.
  if (inputs.price !== undefined) {
    return [
      fieldFailure(
        "prepayDollars",
        "a prepay makes an on-demand instance reserved; an interruptible one (with price) " +
          "cannot be prepaid: remove price or prepayDollars",
      ),
    ];
  }
  // The service refuses a deposit above the account's credit (411 "Insufficient credit").
  const toDeposit = inputs.prepayDollars - (olds.prepaidDollars ?? 0);
  if (toDeposit <= 0) return [];
  const user = await run.client.users.current().catch(() => undefined);
  if (user !== undefined && toDeposit > user.credit) {
    return [
      fieldFailure(
        "prepayDollars",
        "more than the account's credit holds now, which the service refuses; add credit " +
          "or prepay less",
      ),
    ];
  }
  return [];
}

/** The preview's word on a change of `prepayDollars`, or undefined when it changes nothing. */
export function prepayNote(
  olds: InstanceOutputs,
  news: InstanceInputs,
  replaced: boolean,
): string | undefined {
  const prepaid = olds.prepaidDollars ?? 0;
  if (replaced) {
    if (prepaid === 0) return undefined;
    return (
      `the ${dollars(prepaid)} prepaid into instance ${olds.instanceId} goes with it: the ` +
      `service refunds only the deposit left less the discount received when it is destroyed` +
      (news.prepayDollars === undefined ? "" : "; the replacement is prepaid anew")
    );
  }
  const wanted = news.prepayDollars ?? 0;
  if (wanted > prepaid) {
    return (
      `prepays ${dollars(wanted - prepaid)} more into instance ${olds.instanceId} in place ` +
      `(${dollars(wanted)} in all): the service recalculates the discount over the whole ` +
      `deposit left`
    );
  }
  if (wanted < prepaid && (olds.prepayDollars ?? 0) !== wanted) {
    return (
      `nothing is refunded: instance ${olds.instanceId} keeps the ${dollars(prepaid)} ` +
      `prepaid (a deposit is never withdrawn; destroying the instance refunds only the ` +
      `deposit left less the discount received)`
    );
  }
  return undefined;
}

/** The instance's deposit left, as the service shows it (0 when it shows none). */
async function balanceOf(run: Run, instanceId: number): Promise<number | undefined> {
  const shown = await run.client.instances.show(instanceId).catch(() => undefined);
  return shown === undefined ? undefined : (shown.credit_balance ?? 0);
}

/**
 * Deposits `amount` into the instance: what the service shows of it then, or an Error saying
 * what happened. A failure that may have reached the service is decided by the instance's
 * `credit_balance`, read before and after: grown, the deposit was made.
 */
async function deposit(
  run: Run,
  instanceId: number,
  amount: number,
): Promise<{ made: true; shown?: InstanceWire } | { made: false; why: string }> {
  const before = await balanceOf(run, instanceId);
  try {
    await run.client.instances.prepay(instanceId, amount);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const mayHave = error instanceof GpuCloudError && error.mayHaveCreated;
    const after = mayHave ? await balanceOf(run, instanceId) : undefined;
    if (before === undefined || after === undefined || after <= before) {
      return { made: false, why };
    }
  }
  const shown = await run.client.instances.show(instanceId).catch(() => undefined);
  return shown === undefined ? { made: true } : { made: true, shown };
}

/** The outputs after a deposit: what was prepaid, and the price the service shows now. */
function prepaidOutputs(
  run: Run,
  outs: InstanceOutputs,
  prepaid: number,
  shown: InstanceWire | undefined,
): InstanceOutputs {
  const price = discountedTotal(shown);
  const next: InstanceOutputs = { ...outs, prepaidDollars: prepaid };
  if (price !== null) {
    next.dollarsPerHour = atServicePrecision(price);
    // The stack's cap counts what the instance costs now: its discounted price.
    run.budget.repriced(instanceKey(outs.instanceId), next.dollarsPerHour);
  }
  return next;
}

/**
 * At create, once the instance runs (before it is handed over): the deposit. A failed one
 * leaves the instance running, kept in the stack with what was prepaid (nothing), so that the
 * next `up` prepays it.
 */
export async function prepayAfterRunning(
  run: Run,
  created: Created,
  inputs: InstanceInputs,
): Promise<Created> {
  const amount = inputs.prepayDollars;
  if (amount === undefined) return created;
  const instanceId = created.outs.instanceId;
  const name = resourceNameOf(inputs.owner);
  run.progress(`${name}: prepaying ${dollars(amount)} into instance ${instanceId} (reserved)`);
  const result = await deposit(run, instanceId, amount);
  if (!result.made) {
    const message =
      `instance ${created.id} runs, but its prepay failed (${result.why}); nothing was ` +
      `prepaid and it runs at its on-demand price; it is kept in the stack, and the next ` +
      "`pulumi up` prepays it.";
    // Recorded with nothing prepaid: its diff sees the prepay to make (resources/instance/diff.ts).
    throw new InstanceLeftBehindError(message, created.id, created.outs, [message]);
  }
  return { ...created, outs: prepaidOutputs(run, created.outs, amount, result.shown) };
}

/** In place: deposits what `prepayDollars` adds to what was prepaid; the new outputs. */
export async function prepayInPlace(
  run: Run,
  olds: InstanceOutputs,
  news: InstanceInputs,
  outs: InstanceOutputs,
  progress: (message: string) => void,
): Promise<InstanceOutputs> {
  const prepaid = olds.prepaidDollars ?? 0;
  const wanted = news.prepayDollars ?? 0;
  if (wanted <= prepaid) {
    return prepaid === 0 ? outs : { ...outs, prepaidDollars: prepaid };
  }
  const amount = wanted - prepaid;
  progress(`prepaying ${dollars(amount)} more into instance ${olds.instanceId}`);
  const result = await deposit(run, olds.instanceId, amount);
  if (!result.made) {
    throw new Error(
      `instance ${olds.instanceId}: prepaying ${dollars(amount)} more failed (${result.why}); ` +
        `nothing more was prepaid and the instance is unchanged; the next \`pulumi up\` tries ` +
        `again`,
    );
  }
  return prepaidOutputs(run, outs, wanted, result.shown);
}
