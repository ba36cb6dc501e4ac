import {
  bidBounds,
  deadEndStatuses,
  environmentOf,
  type Instance as InstanceWire,
  isNetworkVolume,
  type Volume as VolumeWire,
} from "../../client";
import { expiresAtOf, lifetimeTextOf, readOnstart } from "../../shared/expiry-watchdog";
import type { Run } from "../../run/run";
import { creatingLabelOf } from "../../renting/identity";
import { connectionOutputs, offerShownBy } from "../../renting/instance-shown";
import { overlaySubnetOf } from "../../renting/placement";
import { outbidBy } from "../../renting/outbid";
import { instanceInputsSchema, type InstanceInputs, type InstanceOutputs } from "./inputs";

// `pulumi import` of an instance (Read without recorded properties), by its id. The inputs are
// what the instance runs, so that a program declaring them sees no change: nothing is
// relaunched or relabelled. The instance becomes the stack's like any other it records: a
// destroy destroys it. It is never a leftover (docs/maintainers/ownership.md): it does not carry this
// stack's being-created label.

/** Every marker variable a rent adds (renting/identity.ts): the service's, not the program's. */
const markerPrefix = "PULUMI_GPUCLOUD_";

/** The being-created label of any stack, whatever its token. */
const creatingPrefix = creatingLabelOf("");

const runtypes = ["ssh", "jupyter", "args", "vm"] as const;
const isRuntype = (value: unknown): value is (typeof runtypes)[number] =>
  (runtypes as readonly unknown[]).includes(value);

/** A field's default, from the zod definition (never written twice). */
const defaultOf = (field: "createTimeoutSeconds" | "maxAttempts" | "pollIntervalSeconds"): number =>
  instanceInputsSchema.shape[field].parse(undefined);

/**
 * The bid of an interruptible instance: the service does not show an instance's own bid, so
 * its base price (what it is charged an hour, without storage) stands for it, within the
 * bounds a bid change takes. Declaring another price changes the bid in place. A bid is a price
 * per machine (the OpenAPI's create), and dph_total adds the disk's storage to the base: without
 * dph_base, the base is the total less that storage, never the total itself.
 */
function bidOf(instance: InstanceWire): number | undefined {
  if (instance.is_bid !== true) return undefined;
  const total = instance.dph_total ?? undefined;
  const storage = instance.storage_total_cost ?? undefined;
  const price =
    instance.dph_base ??
    (total !== undefined && storage !== undefined ? total - storage : undefined) ??
    bidBounds.minDollarsPerHour;
  return Math.min(bidBounds.maxDollarsPerHour, Math.max(bidBounds.minDollarsPerHour, price));
}

/** The one refusal message form: which instance, and why. */
const refusal = (instanceId: number, why: string): Error =>
  new Error(`instance ${instanceId} cannot be imported: ${why}`);

/**
 * The env entries that join an overlay (`-n NAME`) and mount volumes (`-v NAME:PATH`) at
 * create, as the official client sends them (the flag and its argument as the key, or the flag
 * as the key and its argument as the value): the service keeps them in the instance's env, but
 * they are no variables of the program's.
 */
export function createDirectivesOf(env: Record<string, string>): {
  overlays: string[];
  mounts: { name: string; mountPath: string }[];
  variables: Record<string, string>;
} {
  const overlays: string[] = [];
  const mounts: { name: string; mountPath: string }[] = [];
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    const flag = /^(-[nv])(?:\s+(\S+))?\s*$/.exec(key.trim());
    if (flag === null) {
      variables[key] = value;
      continue;
    }
    const argument = flag[2] ?? value.trim();
    if (flag[1] === "-n") {
      overlays.push(argument);
      continue;
    }
    const colon = argument.indexOf(":");
    mounts.push(
      colon < 0
        ? { name: argument, mountPath: "" }
        : { name: argument.slice(0, colon), mountPath: argument.slice(colon + 1) },
    );
  }
  return { overlays, mounts, variables };
}

/** What the service shows of an instance's overlay and volumes beside the instance itself. */
export interface ImportContext {
  /** The overlay the instance is on, when the overlay list shows one. */
  readonly overlayMember?: string;
  /** The account's volumes, to resolve a `-v` mount by name and tell network from local. */
  readonly volumes?: readonly VolumeWire[];
}

/** The network volume a `-v NAME:PATH` mount names, by `V.<id>` or its label. */
function mountedVolume(
  instanceId: number,
  name: string,
  volumes: readonly VolumeWire[],
): VolumeWire {
  const byId = /^V\.(\d+)$/.exec(name)?.[1];
  const named = volumes.filter((volume) =>
    byId === undefined ? volume.label === name : volume.id === Number(byId),
  );
  const [only] = named;
  if (named.length !== 1 || only === undefined) {
    throw refusal(
      instanceId,
      `its env mounts ${name} (-v), which names ${named.length === 0 ? "no volume" : "several volumes"} of the account`,
    );
  }
  return only;
}

/** The inputs a program declares for this instance, as the service shows it. */
export function importedInputs(
  instance: InstanceWire,
  context: ImportContext = {},
): InstanceInputs {
  const askId = instance.bundle_id;
  if (askId === null || askId === undefined) {
    throw refusal(instance.id, "the service shows no ask (bundle_id) it was rented from");
  }
  const image = instance.image_uuid ?? "";
  const diskGb = instance.disk_space;
  if (image === "" || typeof diskGb !== "number") {
    throw refusal(instance.id, `the service shows no ${image === "" ? "image" : "disk size"}`);
  }
  const directives = createDirectivesOf(environmentOf(instance));
  const env = Object.fromEntries(
    Object.entries(directives.variables).filter(([name]) => !name.startsWith(markerPrefix)),
  );
  if (directives.overlays.length > 1 || directives.mounts.length > 1) {
    throw refusal(
      instance.id,
      "its env joins or mounts more than one overlay or volume (-n, -v); a program declares " +
        "one overlay and one networkVolume",
    );
  }
  // Joined at create (its env says so), or later (the overlay list shows it as a member).
  const overlay = directives.overlays[0] ?? context.overlayMember;
  const [mount] = directives.mounts;
  const mounted =
    mount === undefined ? undefined : mountedVolume(instance.id, mount.name, context.volumes ?? []);
  const networkVolume =
    mount !== undefined && mounted !== undefined && isNetworkVolume(mounted)
      ? { volumeId: mounted.id, mountPath: mount.mountPath }
      : undefined;
  const templateHashId = instance.template_hash_id ?? undefined;
  // Without a template the service launches `ssh` when none is given, as check assumes.
  const runtype = isRuntype(instance.runtype)
    ? instance.runtype
    : templateHashId === undefined
      ? "ssh"
      : undefined;
  // The service lists a `-v` mount among the linked volumes too: the network one is not `volume`.
  const [volume] = (instance.volume_info ?? []).flatMap((linked) =>
    typeof linked["volume_id"] === "number" &&
    typeof linked["mount_path"] === "string" &&
    !(
      linked["volume_id"] === networkVolume?.volumeId &&
      linked["mount_path"] === networkVolume.mountPath
    )
      ? [{ volumeId: linked["volume_id"], mountPath: linked["mount_path"] }]
      : [],
  );
  const price = bidOf(instance);
  const label = instance.label ?? "";
  // The user's onstart, without the watchdog, whose lifetime and idle rule the program declares.
  const shown = instance.onstart ? readOnstart(instance.onstart) : undefined;
  const expiry = shown?.expiry;
  const idle = shown?.idle;
  return {
    askId,
    ...(volume === undefined ? {} : { volume }),
    ...(networkVolume === undefined ? {} : { networkVolume }),
    ...(overlay === undefined ? {} : { overlay }),
    ...(templateHashId === undefined ? {} : { templateHashId }),
    image,
    diskGb,
    ...(shown?.onstart ? { onstart: shown.onstart } : {}),
    ...(expiry === undefined ? {} : { maxLifetime: lifetimeTextOf(expiry.maxLifetimeSeconds) }),
    // destroy is the default: written only when it is not.
    ...(expiry?.onExpiry === "stop" ? { onExpiry: expiry.onExpiry } : {}),
    ...(idle === undefined
      ? {}
      : {
          idleShutdown: {
            after: lifetimeTextOf(idle.afterSeconds),
            ...(idle.action === "stop" ? { action: idle.action } : {}),
          },
        }),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(label === "" ? {} : { label }),
    ...(runtype === undefined ? {} : { runtype }),
    ...(price === undefined ? {} : { price }),
    createTimeoutSeconds: defaultOf("createTimeoutSeconds"),
    maxAttempts: defaultOf("maxAttempts"),
    state: instance.intended_status === "stopped" ? "stopped" : "running",
    pollIntervalSeconds: defaultOf("pollIntervalSeconds"),
  };
}

export async function importedInstance(
  run: Run,
  id: string,
): Promise<{ id?: string; props?: InstanceOutputs; inputs?: InstanceInputs }> {
  const instanceId = Number(id.trim());
  if (!/^\d+$/.test(id.trim()) || !Number.isSafeInteger(instanceId)) {
    throw new Error(`an instance is imported by its id, a number: not "${id}"`);
  }
  const client = run.client;
  const instance = await client.instances.show(instanceId);
  if (!instance) return {};
  if ((instance.label ?? "").startsWith(creatingPrefix)) {
    throw refusal(
      instanceId,
      "it carries a being-created label (pulumi-gpucloud:creating:…): it is a stack's " +
        "interrupted create, which that stack's next up adopts or destroys",
    );
  }
  const status = instance.actual_status ?? "";
  if ((deadEndStatuses as readonly string[]).includes(status)) {
    throw refusal(instanceId, `it is ${status}, a dead end: nothing runs to be managed`);
  }
  const hasMounts = createDirectivesOf(environmentOf(instance)).mounts.length > 0;
  // A key that may not read overlays (user_read) still imports what the env says.
  const overlays = await client.overlays.list().catch(() => []);
  const context: ImportContext = {
    overlayMember: overlays.find((overlay) => (overlay.instances ?? []).includes(instanceId))?.name,
    ...(hasMounts ? { volumes: await client.volumes.list() } : {}),
  };
  const inputs = importedInputs(instance, context);
  const offer = offerShownBy(instance);
  const expiry = instance.onstart ? readOnstart(instance.onstart).expiry : undefined;
  const outs: InstanceOutputs = {
    ...inputs,
    ...(expiry === undefined ? {} : { expiresAt: expiresAtOf(expiry) }),
    instanceId,
    ...connectionOutputs(instance, await overlaySubnetOf(client, inputs.overlay)),
    // As create records a rent: the ask it came from (diff keeps it while the asks list it).
    attempts: [{ askId: inputs.askId ?? instance.bundle_id ?? 0, instanceId }],
    ...(offer === undefined ? {} : { offer }),
  };
  const outbid = outbidBy(instance, inputs.price);
  if (outbid !== undefined) outs.outbidByDollarsPerHour = outbid;
  return { id: String(instanceId), props: outs, inputs };
}
