import { type Instance as InstanceWire, withCondition } from "../../client";
import type { Run } from "../../run/run";
import { planOutbid } from "./bids";
import { pinnedToVolume } from "./diff";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

// What an up does about an instance refresh found outbid when nothing it may bid wins the
// machine back. With `onOutbid: replace` it is replaced through Pulumi's own replacement: the
// engine creates the new instance (rented by the query, within the stack's cap) and then
// destroys the paused one, so that its disk bills no more and the state never drops it before
// it is gone. A local volume can only follow to a free offer on its own machine, and the paused
// instance is then destroyed first, as for any replacement pinned to a volume.

/** Left paused (with the line saying why), or replaced (with the line saying how). */
export type OutbidFate = { replace: boolean; note: string };

/** The disk's bill while paused, as the service shows it. */
function diskBill(instance: InstanceWire): string {
  const disk = instance.storage_total_cost;
  return disk === null || disk === undefined ? "" : ` ($${disk}/h)`;
}

/** Free offers matching the query on the local volume's machine, or why there are none. */
async function volumeMachineBlocks(
  run: Run,
  news: InstanceInputs,
  volumeId: number,
): Promise<string | undefined> {
  const machineId = (await run.reads.volume(volumeId))?.machine_id;
  if (machineId === null || machineId === undefined) {
    return `its volume V.${volumeId} is not on the account`;
  }
  const query = withCondition(news.offerQuery ?? {}, "machineId", machineId);
  const offers = (await run.client.offers.searchInstances(query)).offers;
  const cap = news.maxDollarsPerHour;
  if (offers.some((offer) => cap === undefined || offer.dollarsPerHour <= cap)) return undefined;
  return (
    `its local volume V.${volumeId} stays on machine ${machineId}, which has no free offer ` +
    `matching offerQuery${cap === undefined ? "" : ` under maxDollarsPerHour $${cap}/h`}; copy ` +
    `the volume's data to a volume elsewhere (vastai copy V.${volumeId}:<path> ` +
    "V.<volume id>:<path>) and link that one, or use a networkVolume, which moves"
  );
}

/**
 * Before any write: undefined when the instance is not outbid (or `price` wins it back, an
 * update); otherwise whether it is replaced, and the preview's line.
 */
export async function outbidFate(
  run: Run,
  olds: InstanceOutputs,
  news: InstanceInputs,
): Promise<OutbidFate | undefined> {
  if (olds.outbidByDollarsPerHour === undefined || news.state !== "running") return undefined;
  const plan = await planOutbid(run.client, olds, news);
  if (plan.kind !== "wait") return undefined;
  if (news.onOutbid !== "replace") return { replace: false, note: plan.note };
  const { instance, winning } = plan;
  const held = `instance ${instance.id} is outbid: a bid of $${winning}/h holds its machine`;
  const volumeId = pinnedToVolume(news) ? news.volume?.volumeId : undefined;
  const blocked =
    volumeId === undefined ? undefined : await volumeMachineBlocks(run, news, volumeId);
  if (blocked !== undefined) {
    return {
      replace: false,
      note:
        `${held}; onOutbid replace cannot rent another: ${blocked}. It stays paused, its data ` +
        `kept and its disk billing${diskBill(instance)} meanwhile`,
    };
  }
  const where =
    volumeId !== undefined
      ? ` on the machine of its volume V.${volumeId}, instance ${instance.id} destroyed first ` +
        "(a local volume is linked to one instance at a time)"
      : news.networkVolume !== undefined
        ? `, mounting its network volume V.${news.networkVolume.volumeId}`
        : "";
  return {
    replace: true,
    note:
      `${held}; it is replaced (onOutbid replace): another instance is rented by offerQuery` +
      `${where}, within the stack's cap, and instance ${instance.id} is destroyed, so that its ` +
      `disk${diskBill(instance)} bills no more; its local disk is lost`,
  };
}
