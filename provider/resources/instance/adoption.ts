import { deadEndStatuses, type GpuCloudClient, type Instance as InstanceWire } from "../../client";
import { isRecorded, ownerOfInstance, specOf, specOfInstance } from "./identity";
import { asksOf, type InstanceInputs } from "./inputs";
import { destroyAndConfirm } from "./lifecycle";
import { once } from "../../once";
import { providerClient } from "../../provider-runtime";

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
 * The account's instances as this run found them. Leftovers only come from earlier runs: the
 * stack's lock keeps two runs of a stack apart, and a resource looks before it rents. So one
 * list, taken by the first create of the provider process (one `pulumi` operation), serves
 * every create of the run: ⌈M/25⌉ requests (the service's page) for the M instances the account
 * holds then, instead of that much per create. A leftover it shows is looked at again before
 * anything is decided (it may have changed since).
 */
const listInstances = () => once(() => providerClient().instances.list());
let instancesAtRunStart = listInstances();

/**
 * Forgets the run's list: the next create lists the account again. The engine starts a
 * provider process per `pulumi` operation; tests that play several runs in one process call
 * this between them.
 */
export function forgetRunListing(): void {
  instancesAtRunStart = listInstances();
}

/**
 * Before renting, settles what interrupted runs left for this resource: instances carrying its
 * owner that the stack does not record (a killed `pulumi up`, a lost create reply). The first
 * one that can still become this resource's instance is adopted; every other one is destroyed.
 * Costs the run's one list of the account's instances (see above) and one read per leftover.
 * Instances of other resources, stacks or projects, and those the stack records (the one a
 * replacement replaces), are never touched.
 */
export async function settleLeftovers(
  client: GpuCloudClient,
  inputs: InstanceInputs,
  progress: (message: string) => void,
): Promise<Adoptee | undefined> {
  const owner = inputs.owner;
  if (owner === undefined) return undefined;
  const listed = (await instancesAtRunStart()).filter(
    (instance) => ownerOfInstance(instance) === owner && !isRecorded(owner, instance.id),
  );
  // The list may be minutes old (creates wait for what they depend on): decide on each
  // leftover as it is now. One that is gone needs nothing.
  const leftovers: InstanceWire[] = [];
  for (const { id } of listed) {
    const now = await client.instances.show(id);
    if (now !== undefined) leftovers.push(now);
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
    if (!(await destroyAndConfirm(client, instance.id, inputs.pollIntervalSeconds))) {
      throw new Error(
        `instance ${instance.id}, rented by an interrupted run, could not be confirmed destroyed; ` +
          `nothing new was rented. Run \`pulumi up\` again.`,
      );
    }
  }
  return adoptee;
}
