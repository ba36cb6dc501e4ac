import { quote } from "shell-quote";
import type { Expiry } from "../shared/expiry-watchdog";
import type { Run } from "../run/run";
import { createRequestOf } from "./attempts";
import { type InstanceInputs, runtypeOf } from "./instance-inputs";
import { onstartToSend } from "./lifetime";

/**
 * Rebuilds an instance's container on its machine from `inputs` (the service's update_template,
 * as `vastai update instance` sends it). It sends what a create would launch (env with its port,
 * overlay and mount entries; the onstart with the watchdog of `expiry`), so the rebuilt
 * container is what a new instance would run; a field the program dropped is cleared, unless
 * the template gives it. The entrypoint's arguments go as one shell-quoted string, as the
 * official client sends them (`vastai update instance --args`). Shared by an Instance and each node of a NodeGroup.
 */
export async function rebuildContainerFrom(
  run: Run,
  instanceId: number,
  inputs: InstanceInputs,
  expiry: Expiry | undefined,
  /** The resource's name, which a failure leads with. */
  name: string,
): Promise<void> {
  const onstart = await onstartToSend(run, inputs, expiry, name);
  const launch = createRequestOf(inputs, onstart);
  const fromTemplate = inputs.templateHashId !== undefined;
  await run.client.instances.rebuildContainer(instanceId, {
    ...(launch.template_hash_id === undefined ? {} : { template_hash_id: launch.template_hash_id }),
    ...(launch.image === undefined ? {} : { image: launch.image }),
    env: launch.env ?? {},
    ...(onstart !== undefined ? { onstart } : fromTemplate ? {} : { onstart: "" }),
    ...(inputs.args !== undefined
      ? { args: quote(inputs.args) }
      : runtypeOf(inputs) === "args" && !fromTemplate
        ? { args: "" }
        : {}),
  });
}
