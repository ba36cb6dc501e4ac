import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { deleteUnlessGone, GpuCloudError, type VolumeOffer } from "../client";
import { once } from "../once";
import { configurationFailures, providerClient } from "../provider-runtime";
import { type DynamicProvider, providerShim } from "../shim";
import { checkInputs, containsUnknown, fieldFailure } from "../validation";

// ---- Inputs -------------------------------------------------------------------------------

export const volumeInputsSchema = z.object({
  askId: z
    .number({ error: "the id of a volume ask (offer)" })
    .int("askId must be an integer")
    .positive("askId must be positive"),
  sizeGb: z
    .number({ error: "the size in GB" })
    .int("sizeGb must be a whole number of GB")
    .positive("sizeGb must be positive")
    .default(15),
});
export type VolumeInputs = z.infer<typeof volumeInputsSchema>;

export const volumeOutputsSchema = volumeInputsSchema.extend({
  /** `V.<number>`, as the service names it. */
  volumeName: z.string(),
  /** The number in the name; the id the service deletes it by. */
  volumeId: z.number().int(),
});
export type VolumeOutputs = z.infer<typeof volumeOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

/** The service has no call to resize or move a volume: any change replaces it. */
export function diffVolume(olds: VolumeOutputs, news: VolumeInputs): pulumi.dynamic.DiffResult {
  const replaces = (["askId", "sizeGb"] as const).filter((field) => olds[field] !== news[field]);
  return { changes: replaces.length > 0, replaces };
}

// ---- CRUD ---------------------------------------------------------------------------------

// The account's volumes before this run, and those this run created: one list per run, not one
// per create, tells a volume a lost reply created from every other.
const volumesBeforeThisRun = once(
  async () => new Set((await providerClient().volumes.list()).map((volume) => volume.id)),
);
const createdThisRun = new Set<number>();

// Each ask's offer, read once per run: the ask's disk_space is the most a volume from it holds.
const offerReads = new Map<number, Promise<VolumeOffer | undefined>>();
function volumeOffer(askId: number): Promise<VolumeOffer | undefined> {
  let read = offerReads.get(askId);
  if (!read) {
    // A failed search says nothing about the size: check passes and create decides.
    read = providerClient()
      .volumes.searchOffers({ id: { eq: askId } })
      .then(([offer]) => offer)
      .catch(() => undefined);
    offerReads.set(askId, read);
  }
  return read;
}

export const provider: DynamicProvider<VolumeInputs, VolumeOutputs> = {
  async check(_olds, news) {
    const checked = checkInputs(volumeInputsSchema, news);
    const failures = [...(await configurationFailures()), ...checked.failures];
    const { askId, sizeGb } = checked.inputs;
    if (failures.length === 0 && !containsUnknown(news)) {
      const offer = await volumeOffer(askId);
      if (offer && sizeGb > offer.disk_space) {
        failures.push(
          fieldFailure(
            "sizeGb",
            `${sizeGb} GB is more than ask ${askId} offers (${offer.disk_space} GB disk_space)`,
          ),
        );
      }
    }
    return { ...checked, failures };
  },

  async diff(_id, olds, news) {
    return diffVolume(olds, news);
  },

  async create(inputs) {
    const client = providerClient();
    // Known before accepting, so that a volume that appears after a lost reply can be told apart.
    const before = await volumesBeforeThisRun();
    try {
      const { volumeName, volumeId } = await client.volumes.acceptVolumeAsk(
        inputs.askId,
        inputs.sizeGb,
      );
      createdThisRun.add(volumeId);
      return { id: volumeName, outs: { ...inputs, volumeName, volumeId } };
    } catch (error) {
      if (!(error instanceof GpuCloudError && error.mayHaveCreated)) throw error;
      // The reply was lost after the service may have created the volume: a single new volume
      // of this size is this create's; anything else is for a person to sort out.
      const appeared = (await client.volumes.list()).filter(
        (volume) =>
          !before.has(volume.id) &&
          !createdThisRun.has(volume.id) &&
          volume.disk_space === inputs.sizeGb,
      );
      const [adopted] = appeared;
      if (appeared.length !== 1 || adopted === undefined) {
        throw new Error(
          `${error.message}. ${appeared.length} new volume(s) of ${inputs.sizeGb} GB appeared ` +
            `(${appeared.map((volume) => `V.${volume.id}`).join(", ") || "none"}); check the ` +
            `account for a volume this run may have created.`,
        );
      }
      createdThisRun.add(adopted.id);
      const volumeName = `V.${adopted.id}`;
      return { id: volumeName, outs: { ...inputs, volumeName, volumeId: adopted.id } };
    }
  },

  async read(id, props) {
    if (!props) return {};
    const found = (await providerClient().volumes.list()).find(
      (volume) => volume.id === props.volumeId,
    );
    if (!found) return {};
    const sizeGb = found.disk_space ?? props.sizeGb;
    return {
      id,
      props: { ...props, sizeGb },
      inputs: { askId: props.askId, sizeGb },
    };
  },

  async delete(_id, props) {
    await deleteUnlessGone(providerClient().volumes.delete(props.volumeId));
  },
};

// ---- The resource -------------------------------------------------------------------------

export interface VolumeArgs {
  /** The volume ask (offer) to accept; see the service's volume search. */
  askId: pulumi.Input<number>;
  /** Size in GB (default 15). */
  sizeGb?: pulumi.Input<number>;
}

/** A disk volume, created by accepting a volume ask. Any change replaces it. */
export class Volume extends pulumi.dynamic.Resource {
  declare readonly askId: pulumi.Output<number>;
  declare readonly sizeGb: pulumi.Output<number>;
  /** `V.<number>`. */
  declare readonly volumeName: pulumi.Output<string>;
  declare readonly volumeId: pulumi.Output<number>;

  constructor(name: string, args: VolumeArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim("pulumi-gpucloud/provider/resources/volume"),
      name,
      // Every output is named here, or the resource would not expose it.
      { askId: args.askId, sizeGb: args.sizeGb, volumeName: undefined, volumeId: undefined },
      opts,
      "gpucloud",
      "Volume",
    );
  }
}
