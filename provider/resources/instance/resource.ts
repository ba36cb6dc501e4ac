import type * as pulumi from "@pulumi/pulumi";
import { getProject, getStack } from "@pulumi/pulumi/metadata";
import { DynamicResource, providerEntry } from "../../shim";
import { ownerOf } from "../../renting/identity";
import { stackSweeper, withSweeper } from "../../renting/stack-sweeper";
import type { InstanceOffer, InstanceOfferQuery } from "../../client";
import {
  instanceClassInputs,
  type InstanceOutputs,
  instanceInputsSchema,
} from "../../renting/instance-inputs";
import { appliedDefaults, type OutputsOf, reportedOutputs } from "../../shared/class-outputs";
import type { InstanceAttempt } from "./inputs";
import type { z } from "zod";
import type { idleShutdownSchema } from "../../renting/idle-shutdown-inputs";
import type { readinessSchema } from "../../renting/readiness-inputs";

/**
 * An Instance's inputs: which offer (exactly one of `askId`, `askIds` and `offerQuery`), what
 * runs (`image` and `diskGb`, or `templateHashId`), and the settings below.
 */
export type InstanceArgs = InstanceSettings & OfferChoice & LaunchChoice;

/** Which offer: exactly one of `askId`, `askIds` and `offerQuery`. */
type OfferChoice =
  | { askId: pulumi.Input<number>; askIds?: never; offerQuery?: never }
  | { askIds: pulumi.Input<pulumi.Input<number>[]>; askId?: never; offerQuery?: never }
  | { offerQuery: pulumi.Input<InstanceOfferQuery | string>; askId?: never; askIds?: never };

/** What runs: an image and a disk, or a template that provides them. */
type LaunchChoice =
  | { image: pulumi.Input<string>; diskGb: pulumi.Input<number> }
  | { templateHashId: pulumi.Input<string> };

export interface InstanceSettings {
  /** The instance ask (offer) to rent. Give this or `askIds`. */
  askId?: pulumi.Input<number>;
  /** Asks to try in order, one per attempt (cycling when attempts outnumber asks). */
  askIds?: pulumi.Input<pulumi.Input<number>[]>;
  /**
   * Rent the best offer matching this query instead of a fixed ask: an object
   * (`{ gpuName: "RTX 4090", gpuRamGb: { gte: 24 }, reliability: { gte: 0.98 } }`) or the official
   * client's string (`"gpu_name=RTX_4090 num_gpus=1"`). Each attempt searches afresh (cheapest
   * first unless `order` says otherwise), checks each offer against the query itself and rents
   * the first that matches; an offer gone at rent time or a dead-end boot moves to the next.
   * Changing the query replaces the instance only when its offer no longer matches.
   */
  offerQuery?: pulumi.Input<InstanceOfferQuery | string>;
  /** With offerQuery: never rent an offer above this price, $/hour. */
  maxDollarsPerHour?: pulumi.Input<number>;
  /**
   * Link an existing volume (e.g. `{ volumeId: volume.volumeId, mountPath: "/data" }`). A volume
   * lives on one machine: with offerQuery the search is pinned to it; an explicit ask on another
   * machine fails at preview. Changing it replaces the instance.
   */
  volume?: pulumi.Input<{ volumeId: pulumi.Input<number>; mountPath: pulumi.Input<string> }>;
  /**
   * Mount a network volume at create (e.g. `{ volumeId: data.volumeId, mountPath: "/data" }` of
   * a `NetworkVolume`). It is on a physical cluster: with offerQuery the search is pinned to it;
   * an explicit ask on a machine of another cluster fails at preview. Changing it replaces the
   * instance; the instance is destroyed before the volume.
   */
  networkVolume?: pulumi.Input<{
    volumeId: pulumi.Input<number>;
    mountPath: pulumi.Input<string>;
  }>;
  /**
   * Join an overlay network at create: an `Overlay`'s `name` (give the output, so that the
   * instance is created after the overlay). The overlay is on a physical cluster: with
   * offerQuery the search is pinned to it; an explicit ask on a machine of another cluster fails
   * at preview. Container instances only. Changing it replaces the instance.
   */
  overlay?: pulumi.Input<string>;
  /**
   * Launch from a template (`Template.hashId`, or any template's `hash_id`): the template's
   * values (image and tag, onstart, runtype, environment, recommended disk) are the defaults,
   * and this instance's own inputs override them, as the service does it: a field given here
   * replaces the template's, and `env` is merged with the template's by name (the names given
   * here win). The template is applied only at launch: a changed hash (editing a template
   * changes it) is recorded in place and never relaunches a running instance. To relaunch on
   * every template change, add Pulumi's own option `replaceOnChanges: ["templateHashId"]`.
   */
  templateHashId?: pulumi.Input<string>;
  /** The container or VM image. Required unless `templateHashId` is given. */
  image?: pulumi.Input<string>;
  /**
   * Disk size in GB, at least 8. Required unless `templateHashId` is given (the template's
   * recommended disk space then applies).
   */
  diskGb?: pulumi.Input<number>;
  /**
   * A script run at start (with `maxLifetime` or `idleShutdown`, after their watchdog). Over 4048
   * characters (the watchdog included) it is gzipped and base64-encoded into a short bootstrap
   * command; one that does not fit even then fails at preview.
   */
  onstart?: pulumi.Input<string>;
  /**
   * The longest the instance may live, counted from its create: `"30s"`, `"90m"`, `"8h"`,
   * `"3d"` (at most `"365d"`). Enforced on the instance itself, by a watchdog in its onstart, so
   * that it holds when nobody runs Pulumi: at `expiresAt` the instance destroys (or stops, see
   * `onExpiry`) itself. Not for a VM or an `args` launch. Changing the duration, adding or
   * removing it replaces the instance; the next `up` after `expiresAt` rents a new one.
   */
  maxLifetime?: pulumi.Input<string>;
  /**
   * What happens at `expiresAt`: `destroy` (default) or `stop`. A stopped instance keeps its
   * disk, which still bills. Only with `maxLifetime`; changing it replaces the instance.
   */
  onExpiry?: pulumi.Input<"destroy" | "stop">;
  /**
   * Stop or destroy the instance once it has been idle for `after` (`"30m"`): every GPU under
   * 5% utilization as `nvidia-smi` reports it, and no SSH connection, for the whole period.
   * `action`: `destroy` (default) or `stop` (its disk still bills, and it may not start again).
   * Enforced on the instance itself by maxLifetime's watchdog; not for a VM or an `args`
   * launch. Changing it rebuilds the container in place.
   */
  idleShutdown?: pulumi.Input<IdleShutdownArgs>;
  /** Environment variables of the instance. */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** A label; changes in place. */
  label?: pulumi.Input<string>;
  /**
   * `ssh` (default; from a template, the template's), `jupyter`, `args` or `vm`. A VM needs an
   * SSH key on the account.
   */
  runtype?: pulumi.Input<"ssh" | "jupyter" | "args" | "vm">;
  /**
   * A bid in $/hour, 0.001 to 32 (interruptible); on-demand when absent. A changed bid changes
   * in place (the instance keeps its id); adding or removing it (on-demand ⇄ interruptible)
   * replaces the instance. When a higher bid takes the machine (outbid), `pulumi refresh` shows
   * it (`actualStatus` stopped, `statusMessage`, `outbidByDollarsPerHour`); the next `up` raises
   * the bid to this price and waits until the instance runs again when this price is above the
   * winning one, and otherwise does what `onOutbid` says.
   */
  price?: pulumi.Input<number>;
  /**
   * What the next `up` does about an instance a higher bid took (outbid): `wait` (default) leaves
   * it paused, saying what its disk bills; `raise` bids a tenth of a cent above the winning bid,
   * up to `maxBidDollarsPerHour`; `replace` (with `offerQuery`) rents another by the query within
   * the stack's cap, then destroys the paused one. Changes in place.
   */
  onOutbid?: pulumi.Input<"wait" | "raise" | "replace">;
  /** The highest bid `onOutbid: "raise"` may set, $/hour; at least `price`. Changes in place. */
  maxBidDollarsPerHour?: pulumi.Input<number>;
  /**
   * Prepay this much credit into the on-demand instance once it runs (a reserved instance), for
   * the service's discount by the months it covers; a higher amount prepays the difference in
   * place, a lower one refunds nothing.
   */
  prepayDollars?: pulumi.Input<number>;
  /**
   * With runtype `args`: the arguments the image's entrypoint gets. Changing them rebuilds the
   * container in place.
   */
  args?: pulumi.Input<pulumi.Input<string>[]>;
  /** Any value: a changed value reboots the container in place (its disk kept). */
  restartTrigger?: pulumi.Input<string>;
  /** Any value: a changed value recycles the container (a fresh pull of the same image). */
  recycleTrigger?: pulumi.Input<string>;
  /** How long create may take in all, attempts included (default 1200 s). */
  createTimeoutSeconds?: pulumi.Input<number>;
  /** Instances to try before giving up (default 3). */
  maxAttempts?: pulumi.Input<number>;
  /**
   * `running` (default) or `stopped`: a stopped instance keeps its disk and releases its GPUs;
   * changing this stops or starts it in place.
   */
  state?: pulumi.Input<"running" | "stopped">;
  /**
   * Seconds between status reads while the instance boots, stops, starts or is destroyed
   * (default 3). The instances a run waits on share their reads: one list request a round for
   * up to 25 of them (with more, each is read at least every fourth round while up to 25 are due).
   */
  pollIntervalSeconds?: pulumi.Input<number>;
  /**
   * Account SSH keys to attach once the instance runs, e.g. `[key.sshKeyId]` of a `SshKey`;
   * added or removed in place. A VM that lists one passes preview before the key exists.
   */
  sshKeyIds?: pulumi.Input<pulumi.Input<number>[]>;
  /**
   * Container ports to open: a number (TCP) or `"<port>/udp"`, sent as `-p <port>:<port>`;
   * `ports` and `urls` then say where each answers. Changing them replaces the instance.
   */
  exposePorts?: pulumi.Input<pulumi.Input<number | string>[]>;
  /**
   * A check create waits for once the instance runs (one of `http`, `tcp`, `onstartLine`, with
   * `initialDelaySeconds`, `intervalSeconds` (5) and `timeoutSeconds` (600)): create returns
   * only when it passes; an instance that never passes is destroyed and another offer tried.
   * Changes in place.
   */
  readiness?: pulumi.Input<ReadinessArgs>;
}

/** `idleShutdown`: how long idle, and what then. */
export type IdleShutdownArgs = NonNullable<z.input<typeof idleShutdownSchema>>;

/** `readiness`: exactly one check, and its timing. */
export type ReadinessArgs = NonNullable<z.input<typeof readinessSchema>>;

/**
 * What was rented. By ask id: the ask, GPUs, price and machine as the instance shows them; by
 * query: every field of the offer as the search answered it.
 */
export type RentedOffer = KnownFields<NonNullable<InstanceOutputs["offer"]>> &
  Partial<InstanceOffer>;

/** The fields a type names, without its index signature (so that a misspelled one is an error). */
type KnownFields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/**
 * The outputs the Instance class registers besides the inputs given and the inputs a refresh may
 * change (`label`, `state`; `sshKeyIds` only ever drops keys that were given): what the service
 * reports, kept current by refresh.
 */
const instanceReportedOutputs = [
  "instanceId",
  "actualStatus",
  "intendedStatus",
  "sshHost",
  "sshPort",
  "publicIp",
  "gpuRamMb",
  "statusMessage",
  "localIp",
  "dollarsPerHour",
  "ports",
  "urls",
  "attempts",
  "outbidByDollarsPerHour",
  "prepaidDollars",
  "expiresAt",
  "offer",
] as const;

/**
 * Every input is also an output, holding the value as applied (`instance.diskGb`); an input the
 * program leaves out holds the default check applies.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- typed outputs, set by the engine
export interface Instance extends OutputsOf<
  Omit<InstanceOutputs, "owner" | "stackToken" | "replaceOnChanges" | "offer">
> {}

/**
 * A GPU instance rented from an ask. Create waits until it is `running`; an instance that
 * reaches a dead end (`exited`, `unknown`, `offline`) is destroyed and another is tried, up to
 * `maxAttempts`. A failed create leaves nothing running.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Instance extends DynamicResource {
  declare readonly instanceId: pulumi.Output<number>;
  declare readonly actualStatus: pulumi.Output<string | null>;
  declare readonly sshHost: pulumi.Output<string | null>;
  declare readonly sshPort: pulumi.Output<number | null>;
  declare readonly publicIp: pulumi.Output<string | null>;
  /** GPU memory in MB. */
  declare readonly gpuRamMb: pulumi.Output<number | null>;
  declare readonly statusMessage: pulumi.Output<string | null>;
  /**
   * The instance's private address: on an overlay, its address in the overlay's subnet (what
   * the other members reach it at); else its first local address; null while it does not run.
   */
  declare readonly localIp: pulumi.Output<string | null>;
  /**
   * While a higher bid holds the instance's machine (seen by refresh): the winning price,
   * $/hour; undefined otherwise.
   */
  declare readonly outbidByDollarsPerHour: pulumi.Output<number | undefined>;
  /** The template the instance was launched from, as last declared. */
  declare readonly templateHashId: pulumi.Output<string | undefined>;
  /** Each attempt create made: ask, instance id, last status and status message. */
  declare readonly attempts: pulumi.Output<InstanceAttempt[]>;
  /**
   * With `maxLifetime`: when the instance expires, fixed at create (ISO 8601, UTC, e.g.
   * `2026-01-01T08:00:00Z`); undefined otherwise.
   */
  declare readonly expiresAt: pulumi.Output<string | undefined>;
  declare readonly label: pulumi.Output<string | undefined>;
  declare readonly state: pulumi.Output<"running" | "stopped">;
  /** What the service keeps the instance at (running or stopped). */
  declare readonly intendedStatus: pulumi.Output<string | null>;
  /**
   * What the instance costs, $/hour, as the service reports it (`dph_total`: GPUs and disk);
   * kept current by refresh. Null while the service reports none.
   */
  declare readonly dollarsPerHour: pulumi.Output<number | null>;
  /**
   * What was rented: `askId`, `gpuName`, `numGpus`, `dollarsPerHour`, `machineId` (and, when
   * rented by query, every other field of the offer as the search answered it).
   */
  declare readonly offer: pulumi.Output<RentedOffer | undefined>;

  constructor(name: string, args: InstanceArgs, opts?: pulumi.CustomResourceOptions) {
    const sweeper = stackSweeper();
    super(
      providerEntry("pulumi-gpucloud/provider/resources/instance"),
      name,
      {
        ...args,
        // What the service reports, and the inputs a refresh may change; the other inputs left
        // out are outputs made when first read (appliedDefaults, below).
        ...reportedOutputs(instanceReportedOutputs),
        label: args.label,
        state: args.state,
        owner: ownerOf(getProject(), getStack(), name),
        // The engine cannot apply the option to a dynamic provider's in-place changes: the
        // provider's diff does (diff.ts). Only when given, so that other states stay as they are.
        ...(opts?.replaceOnChanges?.length ? { replaceOnChanges: opts.replaceOnChanges } : {}),
        stackToken: sweeper.stackToken,
      },
      // The sweeper exists before any instance is rented and outlives every one (see it).
      { ...opts, dependsOn: withSweeper(opts?.dependsOn, sweeper) },
      "Instance",
    );
    appliedDefaults(this, instanceInputsSchema, args, {
      except: [...instanceClassInputs, "label", "state"],
      // Check's runtype without a template (a template's own applies otherwise).
      applied: { runtype: args.templateHashId === undefined ? "ssh" : undefined },
    });
  }
}
