import { z } from "zod";
import { bidBounds } from "../client";
import {
  lifetimeSecondsOf,
  longestLifetimeSeconds,
  maxLifetimePattern,
  onExpiryActions,
} from "../shared/expiry-watchdog";
import { offerQueryInputSchema, overlayNameSchema } from "../shared/input-fields";
import { exposePortsSchema, portsOutputSchema, urlsOutputSchema } from "./ports";
import { idleShutdownSchema } from "./idle-shutdown-inputs";
import { maxBidSchema, onOutbidSchema } from "./outbid-inputs";
import { prepaidDollarsSchema, prepayDollarsSchema } from "./prepay-inputs";
import { readinessSchema } from "./readiness-inputs";

// An instance's inputs and outputs: what a program declares for an Instance and what its state
// records. The renting engine rents every instance with them: an Instance's, and each node of a
// NodeGroup's (node-group/create.ts makes a node's from the group's).

const askIdSchema = z
  .number({ error: "the id of an instance offer (ask)" })
  .int("an ask id is a whole number")
  .positive("an ask id is positive");

export const instanceInputsSchema = z.object({
  askId: askIdSchema
    .describe(
      "The instance ask (offer) to rent, e.g. one getOffers found. Give this, `askIds` or " +
        "`offerQuery`. Changing it replaces the instance.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  askIds: z
    .array(askIdSchema, { error: "an ordered list of ask ids" })
    .min(1, "askIds must list at least one ask")
    .describe(
      "Asks to try in order, one per attempt (cycling when attempts outnumber asks). Changing " +
        "the list replaces the instance only when it no longer holds the ask rented.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  // Rent the best offer matching this query instead of a fixed ask (see offer-choice.ts).
  offerQuery: offerQueryInputSchema
    .describe(
      "Rent the best offer matching this query instead of a fixed ask: an OfferQuery (a value " +
        "or conditions per field, e.g. an RTX 4090 with at least 24 GB of GPU RAM and a " +
        "reliability of at least 0.98) or the official client's query string " +
        '(`"gpu_name=RTX_4090 num_gpus=1"`). Each attempt searches ' +
        "afresh (cheapest first unless `order` says otherwise), checks each offer against the " +
        "query and rents the first that matches; an offer gone at rent time or a dead-end boot " +
        "moves on to the next. Changing the query replaces the instance only when its offer no " +
        "longer matches.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  maxDollarsPerHour: z
    .number({ error: "maxDollarsPerHour must be a number ($/hour)" })
    .positive("maxDollarsPerHour must be positive")
    .describe(
      "With offerQuery: never rent an offer above this price, in dollars per hour. Changing it " +
        "replaces the instance only when its offer is above the new cap.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  // An existing volume linked at create; the instance is rented on the volume's machine.
  volume: z
    .object(
      {
        volumeId: z
          .number()
          .int("volumeId is a whole number")
          .positive("volumeId is positive")
          .describe("The volume to link: a Volume's `volumeId`."),
        mountPath: z
          .string({ error: "mountPath is required, e.g. /data" })
          .startsWith("/", "mountPath must be an absolute path, e.g. /data")
          .describe("Where the volume is mounted in the instance: an absolute path, e.g. `/data`."),
      },
      { error: "volume must be { volumeId, mountPath }" },
    )
    .describe(
      "An existing volume to link: its id (a Volume's `volumeId`) and the absolute path to " +
        "mount it at (e.g. `/data`). A volume lives on one machine: with offerQuery the search " +
        "is pinned to " +
        "it; an explicit ask on another machine fails at preview. Changing it replaces the " +
        "instance.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  // A network volume mounted at create (`-v V.<id>:<path>` in the create's env, as the official
  // client sends it); it is on a cluster, and the instance is rented on a machine of it.
  networkVolume: z
    .object(
      {
        volumeId: z
          .number()
          .int("volumeId is a whole number")
          .positive("volumeId is positive")
          .describe("The network volume to mount: a NetworkVolume's `volumeId`."),
        mountPath: z
          .string({ error: "mountPath is required, e.g. /data" })
          // The official client drops a `-v` entry holding anything else.
          .regex(
            /^\/[A-Za-z0-9_./]*$/,
            "mountPath must be an absolute path of letters, digits, _, . and /, e.g. /data",
          )
          .describe("Where the volume is mounted in the instance: an absolute path, e.g. `/data`."),
      },
      { error: "networkVolume must be { volumeId, mountPath }" },
    )
    .describe(
      "A network volume to mount at create: its id (a NetworkVolume's `volumeId`) and the " +
        "absolute path to mount it at (e.g. `/data`). It is on a physical cluster: with " +
        "offerQuery the search is " +
        "pinned to it; an explicit ask on a machine of another cluster fails at preview. " +
        "Changing it replaces the instance.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  // An overlay joined at create (`-n NAME` in the create's env, as the official client sends it).
  overlay: overlayNameSchema("overlay")
    .describe(
      "An overlay network to join at create: an Overlay's `name`. The instance gets an address " +
        "in the overlay's subnet (`localIp`) and reaches the other members on every port. The " +
        "overlay is on a physical cluster: with offerQuery the search is pinned to it; an " +
        "explicit ask on a machine of another cluster fails at preview. Container instances " +
        "only (not a VM). Changing it replaces the instance.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  // A changed hash rebuilds the container on its machine (resources/instance/container.ts).
  templateHashId: z
    .string({ error: "templateHashId is a template's hash_id (Template.hashId), a string" })
    .regex(
      /^[0-9a-f]{32}$/,
      "templateHashId must be a template's hash_id: 32 lowercase hexadecimal characters",
    )
    .describe(
      "A template to launch from (a Template's `hashId`, or any template's hash_id): its " +
        "values (image and tag, onstart, runtype, environment, recommended disk) are the " +
        "defaults, and this instance's own inputs override them (`env` is merged by name, the " +
        "names given here winning). Changing it rebuilds the container in place from the " +
        "template, as changing `image` does.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  // Required unless templateHashId is given (the template provides it); see check.
  image: z
    .string({ error: "the container image, e.g. pytorch/pytorch" })
    .trim()
    .min(1, "image must not be empty")
    .describe(
      "The container or VM image, e.g. `pytorch/pytorch`. Required unless `templateHashId` is " +
        "given. Changing it rebuilds the container in place: the same instance, machine, GPUs " +
        "and price, its volume still mounted; the container is created anew, so what it wrote " +
        "outside a volume is lost. A VM's is replaced.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  // Required unless templateHashId is given (the template recommends one); see check.
  diskGb: z
    .number({ error: "the disk size in GB, at least 8" })
    .min(8, "diskGb must be at least 8 (GB)")
    .describe(
      "Disk size in gigabytes, at least 8. Required unless `templateHashId` is given (the " +
        "template's recommended disk size then applies). Changing it replaces the instance.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  onstart: z
    .string()
    .describe(
      "A script run at start (with `maxLifetime` or `idleShutdown`, after their watchdog, as written). Over 4048 " +
        "characters (the watchdog included) it is gzipped and base64-encoded into a short " +
        "bootstrap command; one that does not fit even then fails at preview. Changing it " +
        "rebuilds the container in place, as changing `image` does.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  // The service takes the list at create (the OpenAPI's `args`) and one string at a rebuild.
  args: z
    .array(z.string({ error: "each of args must be a string" }), {
      error: 'args is a list of strings, e.g. ["--model", "Qwen/Qwen3-8B"]',
    })
    .max(256, "args must hold at most 256 arguments")
    .describe(
      'Arguments passed to the image\'s entrypoint, e.g. `["--model", "Qwen/Qwen3-8B"]`: for ' +
        "`runtype: args`, which runs the image's own entrypoint instead of an SSH or Jupyter " +
        "launch (and so no onstart). Changing them rebuilds the container in place, as " +
        "changing `image` does.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  // Enforced on the instance itself, by a watchdog in its onstart (shared/expiry-watchdog.ts):
  // it holds while nobody runs Pulumi. Its seconds are lifetime.ts' `maxLifetimeSeconds`.
  maxLifetime: z
    .string({ error: 'maxLifetime is a duration: a whole number and s, m, h or d, e.g. "8h"' })
    .regex(
      maxLifetimePattern,
      'maxLifetime must be a whole number followed by s, m, h or d, e.g. "30s", "90m", "8h" ' +
        'or "3d"',
    )
    .refine(
      (text) => (lifetimeSecondsOf(text) ?? 0) <= longestLifetimeSeconds,
      "maxLifetime must be at most 365d (a year)",
    )
    .describe(
      "The longest the instance may live, counted from its create: a whole number and a " +
        'unit, `s`, `m`, `h` or `d` (`"90m"`, `"8h"`, `"3d"`), at most `365d`. Enforced on ' +
        "the instance itself, so that it holds when nobody runs Pulumi: a watchdog started " +
        "before the onstart stops or destroys it (`onExpiry`) at `expiresAt`, with the " +
        "container's own key (a stop and start does not move the deadline). The watchdog " +
        "adds about 810 characters to the onstart (905 to stop), and the base URL's length. " +
        "Not for a VM or an `args` launch, which run no onstart. Changing the duration, " +
        "adding or removing it replaces the instance (its onstart holds the deadline); the " +
        "next up after `expiresAt` rents a new one.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  onExpiry: z
    .enum(onExpiryActions, { error: "onExpiry must be destroy or stop" })
    .describe(
      "What happens at `expiresAt` (with `maxLifetime`): `destroy` (the default), or `stop`: a " +
        "stopped instance releases its GPUs but keeps its disk, which still bills, and is " +
        "stopped again if started after the deadline. Changing it replaces the instance while " +
        "`maxLifetime` is set.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  idleShutdown: idleShutdownSchema,
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "env names hold letters, digits and _"),
      z.string({ error: "env values are strings" }),
    )
    .describe(
      "Environment variables of the instance: names of letters, digits and `_`. Changing them " +
        "rebuilds the container in place, as changing `image` does.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  exposePorts: exposePortsSchema,
  readiness: readinessSchema,
  // Any change sends the service's reboot or recycle (resources/instance/container.ts).
  restartTrigger: z
    .string({ error: "restartTrigger is a string; any new value restarts the container" })
    .describe(
      "Any value; a new one restarts the container in place (the service's reboot: stopped " +
        "and started on its machine, its disk kept, its GPU priority kept) and runs its " +
        "onstart again. Setting it the first time restarts nothing.",
    )
    .optional(),
  recycleTrigger: z
    .string({ error: "recycleTrigger is a string; any new value recycles the container" })
    .describe(
      "Any value; a new one recycles the container in place (the service's recycle: created " +
        "anew from a fresh pull of the same image tag, on its machine; what it wrote outside a " +
        "volume is lost). Setting it the first time recycles nothing.",
    )
    .optional(),
  // The service takes labels of at most 1024 characters (PUT /api/v0/instances/{id}/).
  label: z
    .string()
    .max(1024, "label must be at most 1024 characters")
    .describe("A label, at most 1024 characters. Changes in place.")
    .optional(),
  // `ssh` when neither the program nor a template says (check sets it without a template).
  runtype: z
    .enum(["ssh", "jupyter", "args", "vm"], { error: "runtype must be ssh, jupyter, args or vm" })
    .describe(
      "How the instance is launched: `ssh` (the default; from a template, the template's), " +
        "`jupyter`, `args` or `vm`. A VM needs an SSH key on the account. Changing it replaces " +
        "the instance.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  // Within the bounds the service's bid change takes, so that every bid can later change in
  // place (resources/instance/diff.ts).
  price: z
    .number({ error: "price (the bid, $/hour) must be a number" })
    .min(
      bidBounds.minDollarsPerHour,
      `price (the bid, $/hour) must be at least ${bidBounds.minDollarsPerHour}`,
    )
    .max(
      bidBounds.maxDollarsPerHour,
      `price (the bid, $/hour) must be at most ${bidBounds.maxDollarsPerHour}`,
    )
    .describe(
      `A bid in dollars per hour, ${bidBounds.minDollarsPerHour} to ` +
        `${bidBounds.maxDollarsPerHour}: an interruptible instance; on-demand when absent. A ` +
        "changed bid changes in place (the instance keeps its id); adding or removing it " +
        "replaces the instance. When a higher bid takes the machine (outbid), refresh shows " +
        "it (`actualStatus` stopped, `outbidByDollarsPerHour`); the next up raises the bid to " +
        "this price when it is above the winning one, and otherwise does what `onOutbid` says.",
    )
    // Adding or removing a bid replaces; changing it does not.
    .meta({ replacement: "sometimes" })
    .optional(),
  onOutbid: onOutbidSchema,
  maxBidDollarsPerHour: maxBidSchema,
  prepayDollars: prepayDollarsSchema,
  createTimeoutSeconds: z
    .number()
    .positive("createTimeoutSeconds must be positive")
    .describe(
      "How long create may take in all, attempts included, in seconds; default 1200. Changes " +
        "in place (only this provider's setting).",
    )
    .default(1200),
  maxAttempts: z
    .number()
    .int("maxAttempts must be a whole number")
    .min(1, "maxAttempts must be at least 1")
    .max(10, "maxAttempts must be at most 10")
    .describe(
      "Instances to try before giving up, 1 to 10; default 3. Changes in place (only this " +
        "provider's setting).",
    )
    .default(3),
  state: z
    .enum(["running", "stopped"], { error: "state must be running or stopped" })
    .describe(
      "`running` (the default) or `stopped`: a stopped instance keeps its disk (still billed) " +
        "and releases its GPUs. Changing it stops or starts the instance in place.",
    )
    .default("running"),
  /**
   * `<project>/<stack>/<resource name>`, set by the Instance class (a dynamic provider is not
   * told its URN); carried by every instance rented, so later runs find what earlier ones left.
   */
  owner: z.string().optional(),
  /**
   * The stack's identity (the InstanceSweeper's `stackToken`), set by the Instance class:
   * adoption and cleanup touch only instances carrying it (identity.ts). Absent in stacks
   * written before it existed; never a reason to replace or update an instance.
   */
  stackToken: z.string().optional(),
  /**
   * The resource option `replaceOnChanges`, handed over by the Instance class: the engine applies
   * it only to properties a provider reports as changed, which a dynamic provider cannot, so
   * instance/diff.ts applies it to the changes it would make in place. Absent when not given; never a
   * reason to update or replace on its own.
   */
  replaceOnChanges: z.array(z.string()).optional(),
  pollIntervalSeconds: z
    .number()
    .min(0.05, "pollIntervalSeconds must be at least 0.05")
    .max(60, "pollIntervalSeconds must be at most 60")
    .describe(
      "Seconds between status reads while the instance boots, stops, starts or is destroyed, " +
        "0.05 to 60; default 3. The instances a run waits on share their reads: one request " +
        "a round for up to 25 of them (with more, each is read at least every fourth round " +
        "while up to 25 are due). Changes in place (only this provider's setting).",
    )
    .default(3),
  // Attached once the instance runs; in place (ssh-keys.ts).
  sshKeyIds: z
    .array(
      z.number().int("an SSH key id is a whole number").positive("an SSH key id is positive"),
      {
        error: "a list of SSH key ids (SshKey.sshKeyId)",
      },
    )
    .describe(
      "Account SSH keys to attach once the instance runs: SshKey `sshKeyId`s. Added or " +
        "removed in place. A VM that lists one passes preview before the key exists.",
    )
    .optional(),
});
export type InstanceInputs = z.infer<typeof instanceInputsSchema>;

/** The inputs the Instance class (or the plugin) sets, never the program: not in the schema. */
export const instanceClassInputs = ["owner", "stackToken", "replaceOnChanges"] as const;

/** The Instance's inputs, as check holds a program's keys against them. */
export const instanceResourceInputs = { type: "Instance", hidden: instanceClassInputs };

/** One try at renting an instance, as reported in outputs and errors. */
export const instanceAttemptSchema = z.object({
  askId: z.number().int().describe("The ask (offer) this attempt rented or tried to rent."),
  instanceId: z
    .number()
    .int()
    .describe("The instance the attempt created, if it got that far.")
    .optional(),
  lastStatus: z
    .string()
    .describe(
      "When the attempt failed: the status its instance last showed (e.g. `exited`, or `gone`).",
    )
    .optional(),
  statusMessage: z
    .string()
    .describe("When the attempt failed: the service's last status message of its instance.")
    .optional(),
  error: z.string().describe("Why the attempt failed, when it did.").optional(),
});
export type InstanceAttempt = z.infer<typeof instanceAttemptSchema>;

export const instanceOutputsSchema = instanceInputsSchema.extend({
  instanceId: z
    .number()
    .int()
    .describe("The service's id of the instance (the create call's `new_contract`)."),
  actualStatus: z
    .string()
    .nullable()
    .describe("What the instance is doing, as the service last said: `running`, `stopped`, ..."),
  intendedStatus: z
    .string()
    .nullable()
    .describe("What the service is asked to keep the instance at: `running` or `stopped`.")
    .optional(),
  sshHost: z.string().nullable().describe("The host to connect to over SSH."),
  sshPort: z.number().int().nullable().describe("The port to connect to over SSH."),
  publicIp: z.string().nullable().describe("The machine's public IP address."),
  gpuRamMb: z.number().int().nullable().describe("Memory per GPU, in megabytes (the API's unit)."),
  statusMessage: z.string().nullable().describe("The service's last status message."),
  // Absent in stacks written before it, until the instance is next created or updated.
  localIp: z
    .string()
    .nullable()
    .describe(
      "The instance's private address: on an overlay, its address in the overlay's subnet " +
        "(what the other members reach it at); else its first local address; null while it " +
        "does not run.",
    )
    .optional(),
  // Absent in stacks written before it, until the instance is next created or refreshed.
  dollarsPerHour: z
    .number()
    .nullable()
    .describe(
      "What the instance costs, in dollars per hour, as the service reports it (`dph_total`: " +
        "its GPUs and its disk; an interruptible one at its bid; a prepaid one less its " +
        "`credit_discount`); kept current by refresh. " +
        "`offer.dollarsPerHour` is the offer's price when it was rented.",
    )
    .optional(),
  // Absent in stacks written before them, until the instance is next created or refreshed.
  ports: portsOutputSchema.optional(),
  urls: urlsOutputSchema.optional(),
  attempts: z
    .array(instanceAttemptSchema)
    .describe("Each attempt create made: ask, instance id, last status and status message."),
  outbidByDollarsPerHour: z
    .number()
    .describe(
      "Set by refresh while a higher bid holds the instance's machine: the winning price, in " +
        "dollars per hour. The instance is stopped and the service still intends it to run; " +
        "the next up raises the bid above it when `price` is higher, and otherwise fails " +
        "saying so. Absent otherwise.",
    )
    .optional(),
  prepaidDollars: prepaidDollarsSchema,
  // Absent without maxLifetime (and in stacks written before it).
  expiresAt: z
    .string()
    .describe(
      "With `maxLifetime`: when the instance expires, fixed at create (ISO 8601, UTC, e.g. " +
        "`2026-01-01T08:00:00Z`). Its watchdog then stops or destroys it (`onExpiry`); the " +
        "next up rents a new one. Absent otherwise.",
    )
    .optional(),
  // Absent in stacks written before offers were recorded.
  offer: z
    .looseObject({
      askId: z.number().int().describe("The ask (offer) rented."),
      gpuName: z.string().nullable().describe('The GPU model, e.g. "RTX 4090".'),
      numGpus: z.number().int().nullable().describe("The number of GPUs."),
      dollarsPerHour: z.number().nullable().describe("The offer's price, in dollars per hour."),
      machineId: z.number().int().nullable().describe("The id of the machine rented."),
    })
    // Not the path's name: `InstanceOffer` is getOffers' offer (client/offer-schemas.ts).
    .meta({
      pulumiType: "InstanceRentedOffer",
      description:
        "What was rented: the ask, GPUs, price and machine, as the offer search answered them " +
        "(by query) or as the instance shows them.",
    })
    .optional(),
});
export type InstanceOutputs = z.infer<typeof instanceOutputsSchema>;

/** The asks an input set allows, in order. */
export function asksOf(inputs: Pick<InstanceInputs, "askId" | "askIds">): number[] {
  return inputs.askIds ?? (inputs.askId === undefined ? [] : [inputs.askId]);
}

/**
 * The runtype an instance is launched with: the program's, else `ssh`, except from a template,
 * whose own runtype then applies (undefined: not sent).
 */
export function runtypeOf(
  inputs: Pick<InstanceInputs, "runtype" | "templateHashId">,
): InstanceInputs["runtype"] {
  return inputs.runtype ?? (inputs.templateHashId === undefined ? "ssh" : undefined);
}
