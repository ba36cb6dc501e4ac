import { offerReadsOf } from "../pricing/offer-reads";
import { recordVolumeDiff, volumePlanFailures } from "../pricing/volume-plan";
import { estimateVolume } from "../pricing/volume-price";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  compileVolumeOfferQuery,
  deleteUnlessGone,
  GpuCloudError,
  isNetworkVolume,
  type Volume as VolumeWire,
  type VolumeOffer,
  type VolumeOfferQuery,
  type VolumeOfferRow,
} from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import type { Run } from "../run/run";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { volumeOfferQueryInputSchema } from "../shared/input-fields";
import { volumeDollarsPerHour, volumeDollarsPerHourField } from "../shared/volume-price";
import { recoverLostCreate } from "../shared/lost-create";
import { theLostVolume } from "../shared/lost-volume";
import { checkInputs, containsUnknown, fieldFailure } from "../shared/validation";
import { withExample } from "../shared/reference-examples";
import { networkVolumeBadInputs, networkVolumeRecorded } from "./network-volume/test-data";

// A network volume: storage on a physical cluster's network disk, which instances on machines of
// that cluster mount (Instance `networkVolume`). Nothing in it is secret.

// ---- Inputs -------------------------------------------------------------------------------

const offerQuerySchema = volumeOfferQueryInputSchema(
  "offerQuery must be a volume offer query object (fields such as clusterId and " +
    "diskSpaceGb) or a query string",
);

export const networkVolumeInputsSchema = z.object({
  askId: z
    .number({ error: "the id of a network volume ask (offer)" })
    .int("askId must be a whole number")
    .positive("askId must be positive")
    .describe(
      "The network volume ask (offer) to take the volume from; its cluster is the volume's. " +
        "Give this or `offerQuery`. Changing it replaces the volume.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  offerQuery: offerQuerySchema
    .describe(
      "Take the volume from the cheapest network volume offer matching this volume offer " +
        "query (a VolumeOfferQuery) with room for `sizeGb` (the query's `order` first, when it " +
        "gives one), e.g. one whose clusterId is 101, or the official client's query string; " +
        "each answered offer is " +
        "checked against the query. Give this or `askId`. Changing it replaces the volume only " +
        "when the volume's offer no longer matches.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  sizeGb: z
    .number({ error: "the size in GB, a whole number" })
    .int("sizeGb must be a whole number of GB")
    .positive("sizeGb must be positive")
    .describe("The volume's size in gigabytes, a whole number. Changing it replaces the volume.")
    .meta({ willReplaceOnChanges: true }),
  // The official client mounts a volume by this name (`-v NAME:/path`) only when it holds
  // nothing but letters, digits, `_` and `.`; `V.<number>` is how volumes are named by id.
  name: z
    .string({ error: "a name of letters, digits, _ and ." })
    .min(1, "name must not be empty")
    .max(256, "name must be at most 256 characters")
    .regex(
      /^[A-Za-z0-9_.]+$/,
      "name may hold only letters, digits, _ and . (the official client mounts a volume by " +
        "such a name alone)",
    )
    .refine((name) => !/^V\.\d+$/.test(name), "name must not be shaped V.<number>, a volume's id")
    .describe(
      "A name for the volume (the service shows it as its label): letters, digits, `_` and " +
        "`.`, at most 256 characters. Optional: instances mount it by its id. Changing it " +
        "replaces the volume.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
});
export type NetworkVolumeInputs = z.infer<typeof networkVolumeInputsSchema>;

// NetworkVolume's example on its reference page (docs/reference/NetworkVolume.md): 100 GB from the
// cheapest network volume offer that is reliable enough.
withExample(networkVolumeInputsSchema, {
  inputs: { offerQuery: { reliability: { gte: 0.98 } }, sizeGb: 100 },
});

export const networkVolumeOutputsSchema = networkVolumeInputsSchema.extend({
  volumeId: z
    .number()
    .int()
    .describe("The volume's id: what an Instance's `networkVolume.volumeId` mounts."),
  volumeName: z.string().describe("The volume's name as the service gives it: `V.<id>`."),
  clusterId: z
    .number()
    .int()
    .describe(
      "The physical cluster the volume is on: an instance that mounts it is rented on a " +
        "machine of this cluster.",
    ),
  offerAskId: z
    .number()
    .int()
    .describe("The ask the volume was taken from: `askId`, or the offer `offerQuery` found.")
    .optional(),
  offer: z
    .record(z.string(), z.unknown())
    .describe(
      "The offer taken, as the search answered it (fields as getVolumeOffers gives them); " +
        "only for a volume created by `offerQuery`.",
    )
    .optional(),
  dollarsPerHour: volumeDollarsPerHourField,
});
export type NetworkVolumeOutputs = z.infer<typeof networkVolumeOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

/**
 * The service can neither resize, rename nor move a volume: a change of ask, size or name
 * replaces it, the new one made before the old is deleted (the instances that mount the old
 * one are replaced with it and go first). A new query replaces only when the volume's offer
 * no longer matches it.
 */
export function diffNetworkVolume(
  olds: NetworkVolumeOutputs,
  news: NetworkVolumeInputs,
): pulumi.dynamic.DiffResult {
  const replaces: string[] = (["askId", "sizeGb", "name"] as const).filter(
    (field) => olds[field] !== news[field],
  );
  const queryChanged = JSON.stringify(olds.offerQuery) !== JSON.stringify(news.offerQuery);
  if (queryChanged && news.offerQuery !== undefined) {
    const recorded = olds.offer as VolumeOffer | undefined;
    if (recorded === undefined || compileVolumeOfferQuery(news.offerQuery).mismatch(recorded)) {
      replaces.push("offerQuery");
    }
  }
  return { changes: replaces.length > 0 || queryChanged, replaces };
}

// ---- CRUD ---------------------------------------------------------------------------------

/** By query: the first offer, in the query's order (cheapest first), that has room. */
async function chooseOffer(
  run: Run,
  inputs: NetworkVolumeInputs,
): Promise<VolumeOffer | undefined> {
  const query = inputs.offerQuery;
  if (query === undefined) return undefined;
  const search = await run.client.offers.searchNetworkVolumes(query);
  const [best] = search.offers.filter((offer) => offer.diskSpaceGb >= inputs.sizeGb);
  if (best !== undefined) return best;
  throw new Error(
    `no network volume offer matches offerQuery with room for ${inputs.sizeGb} GB ` +
      `(${search.offers.length} matched but have less left` +
      (search.rejected.length > 0
        ? `; ${search.rejected.length} answered offer(s) did not match the query and were skipped`
        : "") +
      "); nothing was created",
  );
}

/** The ask's offers, read once per run (check runs at preview and again at the update). */
function networkVolumeOffers(run: Run, askId: number): Promise<VolumeOfferRow[] | undefined> {
  const offerReads = run.reads.networkVolumeOffersByAsk;
  let read = offerReads.get(askId);
  if (read === undefined) {
    // A failed search says nothing about the ask: check passes and create decides.
    read = run.client.volumes
      .searchNetworkVolumeOffers({ id: { eq: askId } })
      .catch(() => undefined);
    offerReads.set(askId, read);
  }
  return read;
}

/** Its price: the ask's storage price, or the offer create accepts by query. */
function networkVolumePrice(run: Run, inputs: NetworkVolumeInputs) {
  return () =>
    estimateVolume(
      offerReadsOf(run),
      { askId: inputs.askId, offerQuery: inputs.offerQuery, sizeGb: inputs.sizeGb },
      async (id) => (await networkVolumeOffers(run, id))?.find((offer) => offer.id === id),
      true,
    );
}

/** The inputs a read answers with: the recorded ones, the size as the service shows it. */
function inputsOf(outs: NetworkVolumeOutputs): NetworkVolumeInputs {
  return {
    ...(outs.askId === undefined ? {} : { askId: outs.askId }),
    ...(outs.offerQuery === undefined ? {} : { offerQuery: outs.offerQuery }),
    sizeGb: outs.sizeGb,
    ...(outs.name === undefined ? {} : { name: outs.name }),
  };
}

export const implementation: ResourceImplementation<NetworkVolumeInputs, NetworkVolumeOutputs> = {
  async check(run, olds, news) {
    const checked = checkInputs(networkVolumeInputsSchema, news, { type: "NetworkVolume" });
    const failures = [...(await run.configurationFailures()), ...checked.failures];
    const ways = (["askId", "offerQuery"] as const).filter((field) => news[field] !== undefined);
    if (ways.length !== 1) {
      failures.push(
        fieldFailure(
          "askId",
          ways.length === 0
            ? "required: the id of a network volume ask (or offerQuery, a query to find one)"
            : "give askId or offerQuery, not both",
        ),
      );
    }
    const { askId, sizeGb } = checked.inputs;
    const creating = olds.askId !== askId || olds.sizeGb !== sizeGb;
    if (failures.length === 0 && askId !== undefined && creating && !containsUnknown(news)) {
      const offers = await networkVolumeOffers(run, askId);
      const [offer] = offers ?? [];
      if (offers !== undefined && offer === undefined) {
        failures.push(fieldFailure("askId", `no network volume ask ${askId} is offered`));
      } else if (offer !== undefined && sizeGb > offer.disk_space) {
        failures.push(
          fieldFailure(
            "sizeGb",
            `${sizeGb} GB is more than network volume ask ${askId} has left ` +
              `(${offer.disk_space} GB disk_space)`,
          ),
        );
      }
    }
    // A new volume's price, held against the stack's cap; an existing one's at its diff
    // (pricing/plan.ts).
    if (failures.length === 0) {
      failures.push(
        ...(await volumePlanFailures(
          run,
          "NetworkVolume",
          olds,
          checked.inputs,
          news,
          networkVolumePrice(run, checked.inputs),
        )),
      );
    }
    return { ...checked, failures };
  },

  async diff(run, _id, olds, news) {
    const diff = diffNetworkVolume(olds, news);
    await recordVolumeDiff(run, "NetworkVolume", olds, news, diff, networkVolumePrice(run, news));
    return diff;
  },

  async update(_run, _id, olds, news) {
    // Only the query changed, and the volume's offer still matches it.
    return { outs: { ...olds, ...news } };
  },

  async create(run, inputs) {
    const client = run.client;
    // Known before creating, so that a volume that appears after a lost reply can be told apart.
    const before = await run.reads.volumeIdsBefore();
    const chosen = await chooseOffer(run, inputs);
    const askId = chosen?.askId ?? inputs.askId ?? 0;
    const found = { offerAskId: askId, ...(chosen === undefined ? {} : { offer: chosen }) };
    const recorded = (volume: VolumeWire): NetworkVolumeOutputs => ({
      ...inputs,
      volumeId: volume.id,
      volumeName: `V.${volume.id}`,
      clusterId: volume.cluster_id ?? chosen?.clusterId ?? 0,
      ...found,
      dollarsPerHour: volumeDollarsPerHour(volume),
    });
    const { volumeId, shown } = await recoverLostCreate<{ volumeId: number; shown?: VolumeWire }>({
      create: () =>
        client.volumes.createNetworkVolume(askId, inputs.sizeGb, {
          ...(inputs.name === undefined ? {} : { name: inputs.name }),
        }),
      // The reply was lost after the service may have made the volume: a single new network
      // volume of this size (cluster and name) is this create's.
      findCreated: async (lost) => {
        const volume = await theLostVolume(run, lost, {
          kind: "network volume",
          sizeGb: inputs.sizeGb,
          before,
          matches: (candidate) =>
            isNetworkVolume(candidate) &&
            (chosen === undefined ||
              chosen.clusterId === null ||
              candidate.cluster_id === chosen.clusterId) &&
            (candidate.label ?? undefined) === inputs.name,
        });
        return { volumeId: volume.id, shown: volume };
      },
    });
    // Never taken for another create's after a lost reply (run/made-this-run.ts).
    run.made.volumeIds.add(volumeId);
    const listed = shown ?? (await client.volumes.list()).find((volume) => volume.id === volumeId);
    return { id: `V.${volumeId}`, outs: recorded(listed ?? { id: volumeId }) };
  },

  async read(run, id, props) {
    if (!props) return importedNetworkVolume(run, id);
    const found = (await run.client.volumes.list()).find((volume) => volume.id === props.volumeId);
    if (found === undefined) return {};
    const outs: NetworkVolumeOutputs = {
      ...props,
      sizeGb: found.disk_space ?? props.sizeGb,
      clusterId: found.cluster_id ?? props.clusterId,
      dollarsPerHour: volumeDollarsPerHour(found),
    };
    return readResult(id, props, outs, inputsOf(outs));
  },

  async delete(run, _id, props) {
    const client = run.client;
    try {
      await deleteUnlessGone(client.volumes.delete(props.volumeId));
    } catch (error) {
      // Refused while an instance, running or stopped, mounts it (the service's volume guide).
      if (!(error instanceof GpuCloudError && error.status === 400)) throw error;
      const shown = await client.volumes
        .list()
        .then((volumes) => volumes.find((volume) => volume.id === props.volumeId))
        .catch(() => undefined);
      const mountedBy = (shown?.instances ?? []).map(String);
      if (mountedBy.length === 0) throw error;
      throw new Error(
        `network volume V.${props.volumeId} cannot be deleted: instance ` +
          `${mountedBy.join(", ")} mount${mountedBy.length === 1 ? "s" : ""} it, and the ` +
          "service deletes no mounted volume. Destroy those instances first (in a program, an " +
          "Instance whose networkVolume.volumeId is this volume's is destroyed before it; an " +
          "instance made elsewhere must be destroyed there), then run the operation again.",
      );
    }
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "network-volume");

/** NetworkVolume, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "NetworkVolume",
  implementation,
  inputs: networkVolumeInputsSchema,
  outputs: networkVolumeOutputsSchema,
  description:
    "Storage on a physical cluster's network disk, taken from a network volume ask (askId) or " +
    "the best offer matching offerQuery, which instances on machines of the cluster mount " +
    "(Instance networkVolume), any number at once. Any change of ask, size or name replaces " +
    "it. The service deletes no volume an instance mounts: the instances go first.",
  packageTypes: ["NetworkVolumeArgs"],
  tests: { records: "networkVolumes", isOnAccount: hasRecord("networkVolumes", "volumeId") },
  badInputs: networkVolumeBadInputs,
  recorded: networkVolumeRecorded,
});

/**
 * `pulumi import` by the volume's name (`V.<n>`, or the number alone). The service does not say
 * which ask a network volume was taken from, only its cluster: the inputs record the size,
 * the name, and `offerQuery: { clusterId }`, which is where a replacement would have to be.
 * The cluster's offer, if the search shows one, is recorded as the offer, so that a later
 * query the volume still matches changes nothing.
 */
async function importedNetworkVolume(
  run: Run,
  id: string,
): Promise<{ id?: string; props?: NetworkVolumeOutputs; inputs?: NetworkVolumeInputs }> {
  const volumeId = Number(/^(?:V\.)?(\d+)$/.exec(id.trim())?.[1]);
  if (!Number.isSafeInteger(volumeId)) {
    throw new Error(
      `a network volume is imported by its name, V.<number> (or the number): not "${id}"`,
    );
  }
  const client = run.client;
  const found = (await client.volumes.list()).find((volume) => volume.id === volumeId);
  if (found === undefined) return {};
  const refuse = (why: string) =>
    new Error(`volume V.${volumeId} cannot be imported as a NetworkVolume: ${why}`);
  if (!isNetworkVolume(found)) {
    throw refuse(
      `it is a local volume, on machine ${found.machine_id ?? "?"} (import it as a Volume)`,
    );
  }
  const clusterId = found.cluster_id;
  const sizeGb = found.disk_space;
  if (typeof sizeGb !== "number") throw refuse("the service shows no size for it");
  const name = found.label ?? undefined;
  if (name !== undefined && !networkVolumeInputsSchema.shape.name.safeParse(name).success) {
    throw refuse(
      `its name ${JSON.stringify(name.slice(0, 40))} is not one a program can declare ` +
        "(letters, digits, _ and .)",
    );
  }
  const offerQuery = { clusterId };
  const offer = await client.offers
    .searchNetworkVolumes(offerQuery)
    .then((search) => search.offers[0])
    .catch(() => undefined);
  const inputs: NetworkVolumeInputs = {
    offerQuery,
    sizeGb,
    ...(name === undefined ? {} : { name }),
  };
  return {
    id: `V.${volumeId}`,
    props: {
      ...inputs,
      volumeId,
      volumeName: `V.${volumeId}`,
      clusterId,
      ...(offer === undefined ? {} : { offerAskId: offer.askId, offer }),
      dollarsPerHour: volumeDollarsPerHour(found),
    },
    inputs,
  };
}

// ---- The resource -------------------------------------------------------------------------

export interface NetworkVolumeArgs {
  /** The network volume ask (offer) to take it from. Give this or offerQuery. */
  askId?: pulumi.Input<number>;
  /**
   * Take it from the cheapest network volume offer matching this query with room for sizeGb,
   * e.g. `{ clusterId: overlay.clusterId }`. Give this or askId.
   */
  offerQuery?: pulumi.Input<VolumeOfferQuery | string>;
  /** Size in GB, a whole number. */
  sizeGb: pulumi.Input<number>;
  /** A name (letters, digits, `_`, `.`), shown as the volume's label. Optional. */
  name?: pulumi.Input<string>;
}

/**
 * Storage on a physical cluster's network disk, which instances on machines of the cluster
 * mount (Instance `networkVolume: { volumeId: volume.volumeId, mountPath: "/data" }`), any number
 * at once. Any change of ask, size or name replaces it. The service does not delete a volume
 * that an instance mounts: the instances go first.
 */
export class NetworkVolume extends DynamicResource {
  declare readonly askId: pulumi.Output<number | undefined>;
  declare readonly sizeGb: pulumi.Output<number>;
  declare readonly name: pulumi.Output<string | undefined>;
  declare readonly volumeId: pulumi.Output<number>;
  /** `V.<id>`. */
  declare readonly volumeName: pulumi.Output<string>;
  /** The physical cluster: instances that mount the volume are rented there. */
  declare readonly clusterId: pulumi.Output<number>;
  /** The ask the volume was taken from. */
  declare readonly offerAskId: pulumi.Output<number>;
  /** What the volume costs, $/hour, as the service reports it; kept current by refresh. */
  declare readonly dollarsPerHour: pulumi.Output<number | null>;

  constructor(name: string, args: NetworkVolumeArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/network-volume"),
      name,
      // Every output is named here, or the resource would not expose it.
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        askId: args.askId,
        offerQuery: args.offerQuery,
        sizeGb: args.sizeGb,
        name: args.name,
        volumeId: undefined,
        volumeName: undefined,
        clusterId: undefined,
        offerAskId: undefined,
        offer: undefined,
        dollarsPerHour: undefined,
      },
      opts,
      "NetworkVolume",
    );
  }
}
