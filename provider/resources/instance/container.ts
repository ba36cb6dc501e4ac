import type { Instance as InstanceWire } from "../../client";
import { rebuildContainerFrom } from "../../renting/container-rebuild";
import { idleRuleChanged, recordedExpiry } from "../../renting/lifetime";
import { untilStatus } from "../../renting/power";
import type { Run } from "../../run/run";
import { rebuildFieldsChanged } from "./diff";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

// What runs in an instance's container, changed on its machine: a rebuild from new launch
// settings (the service's update_template, as `vastai update instance` sends it), a reboot and a
// recycle. The instance keeps its id, machine, GPUs, price and volume; a rebuilt or recycled
// container is created anew, so what it wrote outside a volume is lost (the service's own words
// for recycle: "destroys and recreates container in place"); a reboot keeps its disk.

export type ContainerChange = "rebuild" | "recycle" | "reboot";

/** What an update does to the container; a rebuild covers a recycle, which covers a reboot. */
export function containerChangeOf(
  olds: Partial<InstanceInputs>,
  news: InstanceInputs,
): ContainerChange | undefined {
  // The idle rule is in the onstart, which only a rebuild changes.
  if (rebuildFieldsChanged(olds, news).length > 0 || idleRuleChanged(olds, news)) return "rebuild";
  // A trigger set for the first time changes nothing: there was no value to change.
  const changed = (field: "recycleTrigger" | "restartTrigger") =>
    olds[field] !== undefined && news[field] !== undefined && olds[field] !== news[field];
  if (changed("recycleTrigger")) return "recycle";
  if (changed("restartTrigger")) return "reboot";
  return undefined;
}

/** The preview's line for a change of the container in place. */
export function containerChangeNote(instanceId: number, change: ContainerChange): string {
  switch (change) {
    case "rebuild":
      return (
        `instance ${instanceId} is updated in place: the container is rebuilt on its machine ` +
        "(same instance, GPUs and price, its volume still mounted); its local disk is lost, " +
        "as the service creates the container anew"
      );
    case "recycle":
      return (
        `instance ${instanceId} is recycled in place: the container is created anew from a ` +
        "fresh pull of its image on its machine; its local disk is lost"
      );
    case "reboot":
      return `instance ${instanceId} is restarted in place: its container is stopped and started, its disk kept`;
  }
}

/**
 * Sends the change and, for an instance meant to run, waits until it runs again; a rebuild
 * launches what a new instance of these inputs would (renting/container-rebuild.ts).
 */
export async function changeContainer(
  run: Run,
  name: string,
  olds: InstanceOutputs,
  news: InstanceInputs,
  change: ContainerChange,
): Promise<InstanceWire | undefined> {
  const id = olds.instanceId;
  run.progress(`${name}: ${containerChangeNote(id, change)}`);
  const instances = run.client.instances;
  if (change === "reboot") await instances.rebootContainer(id);
  else if (change === "recycle") await instances.recycleContainer(id);
  else await rebuildContainerFrom(run, id, news, recordedExpiry(olds), name);
  return news.state === "running" ? untilStatus(run, id, "running", news) : undefined;
}
