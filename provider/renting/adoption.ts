import { deadEndStatuses, type Instance as InstanceWire } from "../client";
import { once } from "../run/once";
import type { Run } from "../run/run";
import { isLeftoverOf, leftoversQuery, ownerOfInstance, specOf, specOfInstance } from "./identity";
import { asksOf, type InstanceInputs } from "./instance-inputs";
import { destroyAndConfirm } from "./destroy";
import { isWitness } from "./group-witness";

/** An instance an interrupted run rented for this resource, to be waited for and recorded. */
export interface Adoptee {
  instanceId: number;
  askId: number;
}

function whyNotAdoptable(instance: InstanceWire, inputs: InstanceInputs): string | undefined {
  const status = instance.actual_status ?? "";
  if ((deadEndStatuses as readonly string[]).includes(status)) return `it is ${status}`;
  if (instance.intended_status === "stopped" || status === "stopped") return "it is stopped";
  if (specOfInstance(instance) !== specOf(inputs)) return "it runs another image or settings";
  const askId = instance.bundle_id ?? undefined;
  // Rented by query: any ask the query led to will do.
  const listed = asksOf(inputs);
  if (askId !== undefined && listed.length > 0 && !listed.includes(askId)) {
    return `ask ${askId} is not listed`;
  }
  return undefined;
}

/**
 * This stack's possible leftovers as the run found them: instances still labelled as being
 * created by this stack (identity.ts). Leftovers only come from earlier runs: the stack's lock
 * keeps two runs of a stack apart, and a resource looks before it rents. So one list, taken by
 * the first create of the run (one `pulumi` operation) and filtered by the service on that
 * label, serves every create of the run: one request, usually answering nothing. A leftover it
 * shows is looked at again before anything is decided (it may have changed since).
 */
function leftoversAtRunStart(run: Run, stackToken: string): Promise<InstanceWire[]> {
  const listings = run.reads.leftoversByStack;
  let listing = listings.get(stackToken);
  if (listing === undefined) {
    listing = once(() => run.client.instances.list(leftoversQuery(stackToken)));
    listings.set(stackToken, listing);
  }
  return listing();
}

/**
 * Before renting, settles what this stack's interrupted runs left for this resource: instances
 * carrying this stack's token and this resource's owner that are still labelled as being
 * created (a killed `pulumi up`, a lost create reply). The first one that can still become
 * this resource's instance is adopted; every other one is destroyed. Costs the run's one
 * filtered list (see above) and one read per leftover. Nothing else is ever touched: not
 * another stack's instance (whatever its names), not an instance that was handed over to the
 * engine (recorded, retained or dropped from the state), not one rented by hand, and not one
 * marked by a release before stack tokens, which proves nothing about its stack.
 */
export async function settleLeftovers(
  run: Run,
  inputs: InstanceInputs,
  progress: (message: string) => void,
): Promise<Adoptee | undefined> {
  const client = run.client;
  const { owner, stackToken } = inputs;
  if (owner === undefined || stackToken === undefined) return undefined;
  const isThisResources = (instance: InstanceWire) =>
    isLeftoverOf(instance, stackToken) &&
    ownerOfInstance(instance) === owner &&
    // A group create's witness goes only after the nodes it proves: its group's cleanup
    // removes it (node-group/leftovers.ts), never a create of one instance.
    !isWitness(instance, stackToken) &&
    !run.renting.isRecorded(owner, instance.id);
  const listed = (await leftoversAtRunStart(run, stackToken)).filter(isThisResources);
  // The list may be minutes old (creates wait for what they depend on): decide on each
  // leftover as it is now. One that is gone, or was handed over since, needs nothing.
  const leftovers: InstanceWire[] = [];
  for (const { id } of listed) {
    const now = await client.instances.show(id);
    if (now !== undefined && isThisResources(now)) leftovers.push(now);
  }
  let adoptee: Adoptee | undefined;
  for (const instance of leftovers) {
    const reason = whyNotAdoptable(instance, inputs);
    if (adoptee === undefined && reason === undefined) {
      adoptee = { instanceId: instance.id, askId: instance.bundle_id ?? asksOf(inputs)[0] ?? 0 };
      progress(
        `adopting instance ${instance.id}, rented by an interrupted run ` +
          `(${instance.actual_status ?? "provisioning"})`,
      );
      continue;
    }
    progress(
      `destroying instance ${instance.id}, rented by an interrupted run ` +
        `(${reason ?? "another instance was adopted"})`,
    );
    if (!(await destroyAndConfirm(run, instance.id, inputs.pollIntervalSeconds))) {
      throw new Error(
        `instance ${instance.id}, rented by an interrupted run, could not be confirmed destroyed; ` +
          `nothing new was rented. Run \`pulumi up\` again.`,
      );
    }
  }
  return adoptee;
}
