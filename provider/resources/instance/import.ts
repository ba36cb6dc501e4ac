import {
  bidBounds,
  deadEndStatuses,
  environmentOf,
  type Instance as InstanceWire,
} from "../../client";
import { decodeOnstart } from "../../onstart";
import { providerClient } from "../../provider-runtime";
import { outbidBy } from "./bids";
import { connectionOutputs, offerShownBy } from "./attempts";
import { creatingLabelOf } from "./identity";
import { instanceInputsSchema, type InstanceInputs, type InstanceOutputs } from "./inputs";

// `pulumi import` of an instance (Read without recorded properties), by its id. The inputs are
// what the instance runs, so that a program declaring them sees no change: nothing is
// relaunched or relabelled. The instance becomes the stack's like any other it records: a
// destroy destroys it. It is never a leftover (docs/ownership.md): it does not carry this
// stack's being-created label.

/** Every marker variable a rent adds (identity.ts): the service's, not the program's. */
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
 * bounds a bid change takes. Declaring another price changes the bid in place.
 */
function bidOf(instance: InstanceWire): number | undefined {
  if (instance.is_bid !== true) return undefined;
  const price = instance.dph_base ?? instance.dph_total ?? bidBounds.minDollarsPerHour;
  return Math.min(bidBounds.maxDollarsPerHour, Math.max(bidBounds.minDollarsPerHour, price));
}

/** The one refusal message form: which instance, and why. */
const refusal = (instanceId: number, why: string): Error =>
  new Error(`instance ${instanceId} cannot be imported: ${why}`);

/** The inputs a program declares for this instance, as the service shows it. */
export function importedInputs(instance: InstanceWire): InstanceInputs {
  const askId = instance.bundle_id;
  if (askId === null || askId === undefined) {
    throw refusal(instance.id, "the service shows no ask (bundle_id) it was rented from");
  }
  const image = instance.image_uuid ?? "";
  const diskGb = instance.disk_space;
  if (image === "" || typeof diskGb !== "number") {
    throw refusal(instance.id, `the service shows no ${image === "" ? "image" : "disk size"}`);
  }
  const env = Object.fromEntries(
    Object.entries(environmentOf(instance)).filter(([name]) => !name.startsWith(markerPrefix)),
  );
  const templateHashId = instance.template_hash_id ?? undefined;
  // Without a template the service launches `ssh` when none is given, as check assumes.
  const runtype = isRuntype(instance.runtype)
    ? instance.runtype
    : templateHashId === undefined
      ? "ssh"
      : undefined;
  const [volume] = (instance.volume_info ?? []).flatMap((linked) =>
    typeof linked["volume_id"] === "number" && typeof linked["mount_path"] === "string"
      ? [{ volumeId: linked["volume_id"], mountPath: linked["mount_path"] }]
      : [],
  );
  const price = bidOf(instance);
  const label = instance.label ?? "";
  return {
    askId,
    ...(volume === undefined ? {} : { volume }),
    ...(templateHashId === undefined ? {} : { templateHashId }),
    image,
    diskGb,
    ...(instance.onstart ? { onstart: decodeOnstart(instance.onstart) } : {}),
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
  id: string,
): Promise<{ id?: string; props?: InstanceOutputs; inputs?: InstanceInputs }> {
  const instanceId = Number(id.trim());
  if (!/^\d+$/.test(id.trim()) || !Number.isSafeInteger(instanceId)) {
    throw new Error(`an instance is imported by its id, a number: not "${id}"`);
  }
  const instance = await providerClient().instances.show(instanceId);
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
  const inputs = importedInputs(instance);
  const offer = offerShownBy(instance);
  const outs: InstanceOutputs = {
    ...inputs,
    instanceId,
    ...connectionOutputs(instance),
    // As create records a rent: the ask it came from (diff keeps it while the asks list it).
    attempts: [{ askId: inputs.askId ?? instance.bundle_id ?? 0, instanceId }],
    ...(offer === undefined ? {} : { offer }),
  };
  const outbid = outbidBy(instance, inputs.price);
  if (outbid !== undefined) outs.outbidByDollarsPerHour = outbid;
  return { id: String(instanceId), props: outs, inputs };
}
