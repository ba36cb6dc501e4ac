import type * as pulumi from "@pulumi/pulumi";
import { readResult } from "../../shared/read-result";
import { createInstance } from "../../renting/create";
import { destroyAndConfirm } from "../../renting/destroy";
import { resourceNameOf } from "../../renting/identity";
import { connectionOutputs } from "../../renting/instance-shown";
import {
  configuredBaseUrl,
  expiresAtShownBy,
  lifetimeFailures,
  reportExpired,
} from "../../renting/lifetime";
import { overlaySubnetOf } from "../../renting/placement";
import { followState } from "../../renting/power";
import {
  attachAfterRunning,
  declaresSshKeys,
  sshKeyIdsOnInstance,
  sshKeysBeforeRenting,
  updateSshKeys,
} from "../../renting/ssh-keys";
import type { ResourceImplementation } from "../../shared/resource-implementation";
import { CancelledError } from "../../run/cancellation";
import type { Run } from "../../run/run";
import { checkInputs, containsUnknown, fieldFailure, inputFieldsOf } from "../../shared/validation";
import { bidInputFailures, outbidBy, raiseBidAndResume } from "../../renting/outbid";
import { outbidActs, planOutbid } from "./bids";
import { outbidFate } from "./outbid-replace";
import { changeContainer, containerChangeNote, containerChangeOf } from "./container";
import { replacementNote } from "../../renting/replacement-reasons";
import { deleteFirstNote, diffInstance, launchesAnew, pinnedToVolume } from "./diff";
import { importedInstance } from "./import";
import { offerReadsOf } from "../../pricing/offer-reads";
import {
  asksOf,
  instanceInputsSchema,
  instanceResourceInputs,
  type InstanceInputs,
  type InstanceOutputs,
} from "./inputs";
import { placementFailures } from "./placement";
import {
  prepayAfterRunning,
  prepayFailures,
  prepayInPlace,
  prepayNote,
} from "../../renting/prepay";
import { instancePlanFailures, recordInstanceDiff } from "./pricing";
import { askOffVolumeMachine, volumeMachineMismatch } from "./volume-link";

export function inputsOf(props: InstanceOutputs): InstanceInputs {
  return inputFieldsOf(instanceInputsSchema, props);
}

/**
 * The disk asked for against what each listed ask offers (`disk_space`): the service has been
 * seen to cap a larger disk silently. An ask the search does not show (rented meanwhile,
 * filtered out) is left to create, which the service refuses at once. The offers of each ask
 * list are read once per run: many instances usually share their asks.
 */
async function diskFailures(
  run: Run,
  inputs: InstanceInputs,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const asks = asksOf(inputs);
  const { diskGb } = inputs;
  // Offers found by query are checked against the disk when they are chosen; a disk left to a
  // template is the template's.
  if (asks.length === 0 || diskGb === undefined) return [];
  const offers = await offerReadsOf(run).asks(asks);
  const tooSmall = offers.filter((offer) => offer.disk_space != null && diskGb > offer.disk_space);
  return tooSmall.length === 0
    ? []
    : [
        fieldFailure(
          "diskGb",
          `${diskGb} GB is more than ` +
            tooSmall
              .map((offer) => `ask ${offer.id} offers (${offer.disk_space} GB disk_space)`)
              .join(", ") +
            "; ask for at most that much, or choose an ask with more disk",
        ),
      ];
}

/** Inputs an update records as the program gives them, absent when it does not. */
const recordedAsGiven = [
  "label",
  "sshKeyIds",
  "templateHashId",
  "image",
  "env",
  "onstart",
  "restartTrigger",
  "recycleTrigger",
  "replaceOnChanges",
  "maxLifetime",
  "onExpiry",
  "idleShutdown",
  "prepayDollars",
] as const;

export const implementation: ResourceImplementation<InstanceInputs, InstanceOutputs> = {
  async check(run, olds, news) {
    const setup = await run.configurationFailures();
    const checked = checkInputs(instanceInputsSchema, news, instanceResourceInputs);
    const { inputs } = checked;
    const failures = [...setup, ...checked.failures];
    const ways = (["askId", "askIds", "offerQuery"] as const).filter(
      (field) => news[field] !== undefined,
    );
    if (ways.length > 1) {
      failures.push(fieldFailure(ways[0] ?? "askId", `give ${ways.join(" or ")}, not both`));
    }
    if (ways.length === 0) {
      failures.push(
        fieldFailure(
          "askId",
          "required: the id of an instance offer (or askIds, a list to try, or offerQuery, a " +
            "query for the best matching offer)",
        ),
      );
    }
    // A template provides the image and recommends a disk; without one, the program gives them.
    if (news["templateHashId"] === undefined) {
      if (news["image"] === undefined) {
        failures.push(
          fieldFailure(
            "image",
            "required: the container image, e.g. pytorch/pytorch (or templateHashId, a " +
              "template that provides it)",
          ),
        );
      }
      if (news["diskGb"] === undefined) {
        failures.push(
          fieldFailure(
            "diskGb",
            "required: the disk size in GB, at least 8 (or templateHashId, a template that " +
              "recommends one)",
          ),
        );
      }
      inputs.runtype ??= "ssh";
    }
    if (inputs.maxDollarsPerHour !== undefined && news["offerQuery"] === undefined) {
      failures.push(
        fieldFailure(
          "maxDollarsPerHour",
          "caps offers rented by offerQuery; give offerQuery with it",
        ),
      );
    }
    failures.push(...bidInputFailures(inputs));
    // A replacement is rented by the query: asks name machines, which the winning bid holds.
    if (inputs.onOutbid === "replace" && news["offerQuery"] === undefined) {
      failures.push(
        fieldFailure(
          "onOutbid",
          "replace rents another instance by offerQuery; give offerQuery (askId and askIds " +
            "name machines, which the winning bid holds), or use wait or raise",
        ),
      );
    }
    // Only an args launch passes arguments to the image's entrypoint (a template's may be one).
    if (inputs.args !== undefined && (inputs.runtype ?? "args") !== "args") {
      failures.push(
        fieldFailure(
          "args",
          `the image's entrypoint takes arguments only with runtype "args"; set runtype: ` +
            `"args", or run the commands in onstart`,
        ),
      );
    }
    // The service's volume guide: volumes are for docker instances, never for VMs.
    if (inputs.runtype === "vm") {
      for (const field of ["volume", "networkVolume"] as const) {
        if (inputs[field] === undefined) continue;
        failures.push(
          fieldFailure(
            field,
            "a VM cannot mount a volume: volumes are for container instances (runtype ssh, " +
              "jupyter or args)",
          ),
        );
      }
    }
    // A volume lives on one machine: an explicit ask elsewhere can never mount it.
    if (failures.length === 0 && inputs.volume !== undefined && !containsUnknown(news["volume"])) {
      const mismatch = await askOffVolumeMachine(run, inputs, news);
      if (mismatch !== undefined) {
        const [, field = "volume", why = mismatch] = /^([\w.]+): (.*)$/s.exec(mismatch) ?? [];
        failures.push(fieldFailure(field, why));
      }
    }
    // The onstart with the watchdog of maxLifetime and idleShutdown, which calls the configured
    // address.
    failures.push(...lifetimeFailures(inputs, news, configuredBaseUrl(run)));
    // A VM cannot get an SSH key after it is created: refuse to rent one without a key. Only
    // when one is about to be rented: a running VM must stay manageable if the key goes. Keys
    // the program declares in sshKeyIds are verified by create, before renting.
    const renting = Object.keys(olds).length === 0 || launchesAnew(olds, inputs);
    // The overlay and the network volume exist and share a cluster with an explicit ask.
    if (
      failures.length === 0 &&
      renting &&
      (inputs.overlay !== undefined || inputs.networkVolume !== undefined)
    ) {
      failures.push(...(await placementFailures(run, inputs, news)));
    }
    // By query with a volume: the volume's machine has a matching offer under the cap. Also
    // for a new query or cap, which may replace the instance (diff decides, from its offer).
    const queryChanged =
      JSON.stringify(olds.offerQuery) !== JSON.stringify(inputs.offerQuery) ||
      olds.maxDollarsPerHour !== inputs.maxDollarsPerHour;
    if (failures.length === 0 && (renting || queryChanged) && inputs.volume !== undefined) {
      const mismatch = await volumeMachineMismatch(run, inputs, news);
      if (mismatch !== undefined) failures.push(fieldFailure(mismatch.field, mismatch.message));
    }
    // The stack token is unknown at a new stack's first preview; it is not the program's.
    if (failures.length === 0 && renting && !containsUnknown({ ...news, stackToken: undefined })) {
      failures.push(...(await diskFailures(run, inputs)));
    }
    if (failures.length === 0 && inputs.runtype === "vm" && renting && !declaresSshKeys(news)) {
      const user = await run.client.users.current();
      if (!user.hasSshKey) {
        failures.push(
          fieldFailure(
            "runtype",
            "a VM needs an SSH key registered on the account before it is created, " +
              "and cannot recover without one; register a key first (a gpucloud.SshKey listed in " +
              "sshKeyIds), or use a container runtype",
          ),
        );
      }
    }
    if (failures.length === 0) failures.push(...(await prepayFailures(run, olds, inputs)));
    // Its price after the change, held against the stack's cap (pricing/plan.ts).
    if (failures.length === 0) {
      failures.push(...(await instancePlanFailures(run, olds, inputs, news)));
    }
    return { inputs, failures };
  },

  async diff(run, _id, olds, news) {
    // The stack records this instance: a create for the same resource (a replacement) in this
    // process must neither adopt nor destroy it.
    run.renting.rememberRecorded(olds.owner, olds.instanceId);
    reportExpired(run, olds, `${resourceNameOf(olds.owner)}: instance ${olds.instanceId}`);
    const name = resourceNameOf(olds.owner);
    let diff = diffInstance(olds, news);
    // Delete-first for the volume's sake: said at preview, since it costs the instance a boot.
    if (diff.deleteBeforeReplace === true && pinnedToVolume(news) && olds.volume !== undefined) {
      run.progress(`${name}: ${deleteFirstNote(olds)}`);
    }
    // In place or replaced, said at preview with why: the engine names the fields only.
    const replaces = diff.replaces ?? [];
    const container = replaces.length === 0 ? containerChangeOf(olds, news) : undefined;
    // Outbid, and nothing it may bid wins it back: replaced (onOutbid replace) or left paused,
    // every preview and up saying which, and what it bills.
    const outbid =
      replaces.length === 0 && !outbidActs(olds, news)
        ? await outbidFate(run, olds, news)
        : undefined;
    if (outbid?.replace === true) {
      diff = { changes: true, replaces: ["onOutbid"], deleteBeforeReplace: pinnedToVolume(news) };
    }
    const note =
      replaces.length > 0
        ? replacementNote(`instance ${olds.instanceId}`, replaces, news.replaceOnChanges)
        : outbid?.replace !== true && container && containerChangeNote(olds.instanceId, container);
    if (note) run.progress(`${name}: ${note}`);
    const prepay = prepayNote(olds, news, replaces.length > 0 || outbid?.replace === true);
    if (prepay) run.progress(`${name}: ${prepay}`);
    if (outbid !== undefined) run.progress(`${name}: ${outbid.note}`);
    await recordInstanceDiff(run, olds, news, diff);
    return diff;
  },

  async create(run, inputs) {
    const client = run.client;
    const sshKeys = await sshKeysBeforeRenting(client, inputs);
    return createInstance(run, inputs, async (created) =>
      prepayAfterRunning(run, await attachAfterRunning(client, created, sshKeys), inputs),
    );
  },

  async read(run, id, props) {
    // `pulumi import`: what the instance runs, found by id (import.ts).
    if (!props) return importedInstance(run, id);
    const instance = await run.client.instances.showAmongMany(props.instanceId);
    if (!instance) return {};
    run.renting.rememberRecorded(props.owner, props.instanceId);
    // An instance without a label may show "" (relabelled to nothing) as well as null.
    const label =
      (instance.label ?? "") === (props.label ?? "") ? props.label : (instance.label ?? undefined);
    const sshKeyIds = await sshKeyIdsOnInstance(run.client, props);
    const subnet = await overlaySubnetOf(run.client, props.overlay);
    const outs: InstanceOutputs = { ...props, ...connectionOutputs(instance, subnet), sshKeyIds };
    if (sshKeyIds === undefined) delete outs.sshKeyIds;
    // Absent in stacks written before it: their refresh sees no drift for it.
    if (!("localIp" in props)) delete outs.localIp;
    // Outbid: the next up raises the bid, or says why it cannot (update). Absent otherwise, so
    // that stacks recorded before this output see no drift.
    const outbid = outbidBy(instance, props.price);
    if (outbid === undefined) delete outs.outbidByDollarsPerHour;
    else outs.outbidByDollarsPerHour = outbid;
    if (label === undefined) delete outs.label;
    else outs.label = label;
    // The deadline the instance's own watchdog counts down to, as its onstart says.
    const expiresAt = props.maxLifetime === undefined ? undefined : expiresAtShownBy(instance);
    if (expiresAt !== undefined) outs.expiresAt = expiresAt;
    // Stopped or started outside Pulumi: the next diff sees it and the next up restores it.
    if (instance.intended_status === "stopped" || instance.intended_status === "running") {
      outs.state = instance.intended_status;
    }
    return readResult(id, props, outs, inputsOf(outs));
  },

  async update(run, _id, olds, news) {
    const client = run.client;
    const name = resourceNameOf(news.owner ?? olds.owner);
    const progress = (message: string): void => {
      run.progress(`${name}: ${message}`);
    };
    // Outbid (found by refresh) and declared running: decided before any write.
    const outbid =
      olds.outbidByDollarsPerHour !== undefined && news.state === "running"
        ? await planOutbid(client, olds, news)
        : undefined;
    const subnet = await overlaySubnetOf(client, news.overlay);
    let outs: InstanceOutputs = { ...olds, ...news };
    // Left paused, it stays recorded as outbid; the rest of the update goes on.
    if (outbid?.kind === "wait") progress(outbid.note);
    else delete outs.outbidByDollarsPerHour;
    if (outbid?.kind === "raise") {
      const resumed = await raiseBidAndResume(
        run,
        name,
        olds.instanceId,
        outbid,
        news.pollIntervalSeconds,
        progress,
      );
      outs = { ...outs, ...connectionOutputs(resumed, subnet) };
    } else {
      if (outbid?.kind === "settled" && outbid.instance !== undefined) {
        outs = { ...outs, ...connectionOutputs(outbid.instance, subnet) };
      }
      // A bid changed for another (between on-demand and a bid, diff replaces).
      if (news.price !== undefined && olds.price !== undefined && news.price !== olds.price) {
        progress(`changing the bid of instance ${olds.instanceId} to $${news.price}/h`);
        await client.instances.changeBid(olds.instanceId, news.price);
        // Its price is the new bid's now: `dollarsPerHour` records what the service says.
        const shown = await client.instances.show(olds.instanceId);
        if (shown !== undefined) outs = { ...outs, ...connectionOutputs(shown, subnet) };
      }
    }
    outs = await prepayInPlace(run, olds, news, outs, progress);
    const container = containerChangeOf(olds, news);
    if (container !== undefined) {
      const rebuilt = await changeContainer(run, name, olds, news, container);
      if (rebuilt !== undefined) outs = { ...outs, ...connectionOutputs(rebuilt, subnet) };
    }
    if ((news.label ?? "") !== (olds.label ?? "")) {
      await client.instances.relabel(olds.instanceId, news.label ?? "");
    }
    await updateSshKeys(client, olds.instanceId, olds.sshKeyIds, news);
    if (news.state !== (olds.state ?? "running")) {
      const followed = await followState(run, olds.instanceId, news.state, news, progress);
      outs = { ...outs, ...connectionOutputs(followed, subnet) };
    }
    // What the program no longer gives is no longer recorded (a rebuild cleared it too); a
    // lifetime is recorded as written (a change that would move the deadline replaces: diff.ts).
    for (const field of recordedAsGiven) {
      if (news[field] === undefined) Reflect.deleteProperty(outs, field);
    }
    return { outs };
  },

  async delete(run, _id, props) {
    const gone = await destroyAndConfirm(
      run,
      props.instanceId,
      props.pollIntervalSeconds,
      600_000,
    ).catch((error: unknown) => {
      if (!(error instanceof CancelledError)) throw error;
      throw new Error(
        `cancelled: instance ${props.instanceId} was destroyed but not yet confirmed gone; it ` +
          `stays in the stack until a refresh or the next \`pulumi destroy\` sees it gone`,
      );
    });
    if (!gone) {
      throw new Error(
        `instance ${props.instanceId} still exists 10 minutes after it was destroyed`,
      );
    }
  },
};
