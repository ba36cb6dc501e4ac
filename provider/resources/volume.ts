import { placementKey } from "../pricing/instance-price";
import { recordVolumeDiff, volumePlanFailures } from "../pricing/volume-plan";
import { type Placement, placeForInstance, volumeOffer, volumePrice } from "./volume/placement";
import { volumeBadInputs, volumeRecorded } from "./volume/test-data";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  compileVolumeOfferQuery,
  deleteUnlessGone,
  isNetworkVolume,
  type InstanceOfferQuery,
  type Volume as VolumeWire,
  type VolumeOffer,
  type VolumeOfferQuery,
} from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import type { Run } from "../run/run";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { volumeOfferQueryInputSchema } from "../shared/input-fields";
import { recoverLostCreate } from "../shared/lost-create";
import { theLostVolume } from "../shared/lost-volume";
import { checkInputs, containsUnknown, fieldFailure } from "../shared/validation";
import { withExample } from "../shared/reference-examples";
import { appliedDefaults, type OutputsOf, reportedOutputs } from "../shared/class-outputs";
import { volumeDollarsPerHour, volumeDollarsPerHourField } from "../shared/volume-price";
import { forInstanceSchema, placeWithInstance } from "../renting/volume-placement";

// ---- Inputs -------------------------------------------------------------------------------

const volumeOfferQuerySchema = volumeOfferQueryInputSchema(
  "volumeOfferQuery must be a query object ({ diskSpaceGb: { gte: 100 } }) or a string",
);

export const volumeInputsSchema = z.object({
  askId: z
    .number({ error: "the id of a volume ask (offer)" })
    .int("askId must be an integer")
    .positive("askId must be positive")
    .describe(
      "The volume ask (offer) to accept, e.g. one getVolumeOffers found. Give this or " +
        "`volumeOfferQuery`. Changing it replaces the volume.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  volumeOfferQuery: volumeOfferQuerySchema
    .describe(
      "Accept the cheapest volume offer matching this query and offering at least `sizeGb`: " +
        "a VolumeOfferQuery (e.g. offers in the US with a reliability of at least 0.99) or the " +
        "official " +
        "client's query string; each answered offer is checked against the query. Give this " +
        "or `askId`. Changing it replaces the volume only when the volume no longer matches.",
    )
    .meta({ replacement: "sometimes" })
    .optional(),
  sizeGb: z
    .number({ error: "the size in GB" })
    .int("sizeGb must be a whole number of GB")
    .positive("sizeGb must be positive")
    .describe(
      "The volume's size in gigabytes, a whole number; default 15. Changing it replaces the " +
        "volume.",
    )
    .meta({ willReplaceOnChanges: true })
    .default(15),
  // Where the instance that links the volume can be rented (renting/volume-placement.ts).
  forInstance: forInstanceSchema.optional(),
});
export type VolumeInputs = z.infer<typeof volumeInputsSchema>;

// Volume's example on its reference page (docs/reference/Volume.md): 50 GB from the cheapest volume
// offer that is reliable enough and has room for it.
withExample(volumeInputsSchema, {
  inputs: { volumeOfferQuery: { reliability: { gte: 0.98 } }, sizeGb: 50 },
});

export const volumeOutputsSchema = volumeInputsSchema.extend({
  volumeName: z.string().describe("The volume's name as the service gives it: `V.<number>`."),
  volumeId: z
    .number()
    .int()
    .describe("The number in the volume's name: the id the service knows it by."),
  offerAskId: z
    .number()
    .int()
    .describe("The ask accepted: `askId`, or the offer `volumeOfferQuery` found.")
    .optional(),
  machineId: z
    .number()
    .int()
    .nullable()
    .describe("The machine the volume lives on: an instance that links the volume is rented there.")
    .optional(),
  offer: z
    .record(z.string(), z.unknown())
    .describe(
      "The offer accepted, as the search answered it (fields as getVolumeOffers gives them); " +
        "only for a volume created by `volumeOfferQuery`.",
    )
    .optional(),
  dollarsPerHour: volumeDollarsPerHourField,
});
export type VolumeOutputs = z.infer<typeof volumeOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

/**
 * The service has no call to resize or move a volume: a change of ask or size replaces it, a
 * change of query only when the volume no longer matches it, and `forInstance` never does.
 */
export function diffVolume(olds: VolumeOutputs, news: VolumeInputs): pulumi.dynamic.DiffResult {
  const replaces: string[] = (["askId", "sizeGb"] as const).filter(
    (field) => olds[field] !== news[field],
  );
  // A query change replaces only when the volume's machine no longer matches it.
  const queryChanged =
    JSON.stringify(olds.volumeOfferQuery) !== JSON.stringify(news.volumeOfferQuery);
  if (queryChanged && news.volumeOfferQuery !== undefined) {
    const recorded = olds.offer as VolumeOffer | undefined;
    if (
      recorded === undefined ||
      compileVolumeOfferQuery(news.volumeOfferQuery).mismatch(recorded)
    ) {
      replaces.push("volumeOfferQuery");
    }
  }
  // Where the volume's instances rent is only recorded: a volume is never moved for it.
  const forInstanceChanged = JSON.stringify(olds.forInstance) !== JSON.stringify(news.forInstance);
  return { changes: replaces.length > 0 || queryChanged || forInstanceChanged, replaces };
}

// ---- CRUD ---------------------------------------------------------------------------------

/**
 * By query: the first offer, in the query's order, that matches it and offers sizeGb; with
 * `forInstance`, the one whose machine has the cheapest instance offer for it.
 */
async function chooseVolumeOffer(run: Run, inputs: VolumeInputs): Promise<VolumeOffer | undefined> {
  const query = inputs.volumeOfferQuery;
  if (query === undefined) return undefined;
  const search = await run.client.offers.searchVolumes(query);
  const fits = search.offers.filter((offer) => offer.diskSpaceGb >= inputs.sizeGb);
  if (fits.length > 0 && inputs.forInstance !== undefined) {
    const placed = await placeWithInstance(run.client, inputs.forInstance, fits);
    if ("problem" in placed) throw new Error(`${placed.problem}; nothing was created`);
    return placed.volume;
  }
  const [best] = fits;
  if (best !== undefined) return best;
  throw new Error(
    `no volume offer matches volumeOfferQuery with room for ${inputs.sizeGb} GB ` +
      `(${search.offers.length} matched but were smaller` +
      (search.rejected.length > 0
        ? `; ${search.rejected.length} answered offer(s) did not match the query and were skipped`
        : "") +
      `); nothing was created`,
  );
}

export const implementation: ResourceImplementation<VolumeInputs, VolumeOutputs> = {
  async check(run, olds, news) {
    const checked = checkInputs(volumeInputsSchema, news, { type: "Volume" });
    const failures = [...(await run.configurationFailures()), ...checked.failures];
    const ways = (["askId", "volumeOfferQuery"] as const).filter((f) => news[f] !== undefined);
    if (ways.length !== 1) {
      failures.push(
        fieldFailure(
          "askId",
          ways.length === 0
            ? "required: the id of a volume ask (or volumeOfferQuery, a query to find one)"
            : "give askId or volumeOfferQuery, not both",
        ),
      );
    }
    const { askId, sizeGb } = checked.inputs;
    if (failures.length === 0 && askId !== undefined && !containsUnknown(news)) {
      const offer = await volumeOffer(run, askId);
      if (offer && sizeGb > offer.disk_space) {
        failures.push(
          fieldFailure(
            "sizeGb",
            `${sizeGb} GB is more than ask ${askId} offers (${offer.disk_space} GB disk_space)`,
          ),
        );
      }
    }
    // A volume about to be placed: where its instance can rent, known at preview.
    const existing = Object.keys(olds).length > 0;
    const placing = !existing || olds["askId"] !== askId || olds["sizeGb"] !== sizeGb;
    const { forInstance } = checked.inputs;
    let placement: Placement | undefined;
    if (failures.length === 0 && placing && forInstance !== undefined && !containsUnknown(news)) {
      placement = await placeForInstance(run, checked.inputs, forInstance);
      if ("problem" in placement) failures.push(fieldFailure("forInstance", placement.problem));
      else if (placement.machineId !== undefined && !existing) {
        // The Instance that links it, checked later, is priced on this machine.
        const key = placementKey(forInstance.offerQuery, forInstance.maxDollarsPerHour);
        const machines = run.plan.volumeMachines.get(key) ?? [];
        if (!machines.includes(placement.machineId)) machines.push(placement.machineId);
        run.plan.volumeMachines.set(key, machines);
      }
    }
    // A new volume's price, held against the stack's cap; an existing one's at its diff
    // (pricing/plan.ts).
    if (failures.length === 0) {
      failures.push(
        ...(await volumePlanFailures(
          run,
          "Volume",
          olds,
          checked.inputs,
          news,
          volumePrice(run, checked.inputs, placement),
        )),
      );
    }
    return { ...checked, failures };
  },

  async update(_run, _id, olds, news) {
    // Only the query or forInstance changed, and the volume still matches the query.
    const outs: VolumeOutputs = { ...olds, ...news };
    if (news.forInstance === undefined) delete outs.forInstance;
    return { outs };
  },

  async diff(run, _id, olds, news) {
    const diff = diffVolume(olds, news);
    await recordVolumeDiff(run, "Volume", olds, news, diff, volumePrice(run, news, undefined));
    return diff;
  },

  async create(run, inputs) {
    const client = run.client;
    // Known before accepting, so that a volume that appears after a lost reply can be told apart.
    const before = await run.reads.volumeIdsBefore();
    const chosen = await chooseVolumeOffer(run, inputs);
    const askId = chosen?.askId ?? inputs.askId ?? 0;
    const found = {
      offerAskId: askId,
      machineId: chosen?.machineId ?? null,
      ...(chosen === undefined ? {} : { offer: chosen }),
    };
    const { volumeName, volumeId, shown } = await recoverLostCreate<{
      volumeName: string;
      volumeId: number;
      shown?: VolumeWire;
    }>({
      create: () => client.volumes.acceptVolumeAsk(askId, inputs.sizeGb),
      // The reply was lost after the service may have created the volume: a single new volume
      // of this size is this create's. A network volume is another create's (a NetworkVolume's,
      // a NodeGroup's).
      findCreated: async (lost) => {
        const volume = await theLostVolume(run, lost, {
          kind: "volume",
          sizeGb: inputs.sizeGb,
          before,
          matches: (candidate) => !isNetworkVolume(candidate),
        });
        return { volumeName: `V.${volume.id}`, volumeId: volume.id, shown: volume };
      },
    });
    // Never taken for another create's after a lost reply (run/made-this-run.ts).
    run.made.volumeIds.add(volumeId);
    const listed = shown ?? (await client.volumes.list()).find((v) => v.id === volumeId);
    const machineId = found.machineId ?? listed?.machine_id ?? null;
    const dollarsPerHour = volumeDollarsPerHour(listed);
    return {
      id: volumeName,
      outs: { ...inputs, volumeName, volumeId, ...found, machineId, dollarsPerHour },
    };
  },

  async read(run, id, props) {
    if (!props) return importedVolume(run, id);
    const found = (await run.client.volumes.list()).find((volume) => volume.id === props.volumeId);
    if (!found) return {};
    const sizeGb = found.disk_space ?? props.sizeGb;
    const outs = {
      ...props,
      sizeGb,
      machineId: found.machine_id ?? props.machineId ?? null,
      dollarsPerHour: volumeDollarsPerHour(found),
    };
    return readResult(id, props, outs, {
      ...(props.askId === undefined ? {} : { askId: props.askId }),
      ...(props.volumeOfferQuery === undefined ? {} : { volumeOfferQuery: props.volumeOfferQuery }),
      ...(props.forInstance === undefined ? {} : { forInstance: props.forInstance }),
      sizeGb,
    });
  },

  async delete(run, _id, props) {
    await deleteUnlessGone(run.client.volumes.delete(props.volumeId));
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "volume");

/** Volume, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "Volume",
  implementation,
  inputs: volumeInputsSchema,
  outputs: volumeOutputsSchema,
  description:
    "A disk volume, created by accepting a volume ask (askId) or the best offer matching " +
    "volumeOfferQuery. Any change of ask or size replaces it.",
  packageTypes: ["VolumeArgs"],
  tests: { records: "volumes", isOnAccount: hasRecord("volumes", "volumeId") },
  badInputs: volumeBadInputs,
  recorded: volumeRecorded,
});

/**
 * `pulumi import` by the volume's name (`V.<n>`, or the number alone). The service does not
 * show which ask a volume was accepted from, only its machine: the inputs record the size and
 * `volumeOfferQuery: { machineId: { eq: <machine> } }`, which is where a replacement would have
 * to be (a local volume lives on its machine). The machine's volume offer, if the search shows
 * one, is recorded as the offer, so that a later query the volume still matches changes
 * nothing.
 */
async function importedVolume(
  run: Run,
  id: string,
): Promise<{ id?: string; props?: VolumeOutputs; inputs?: VolumeInputs }> {
  const volumeId = Number(/^(?:V\.)?(\d+)$/.exec(id.trim())?.[1]);
  if (!Number.isSafeInteger(volumeId)) {
    throw new Error(`a volume is imported by its name, V.<number> (or the number): not "${id}"`);
  }
  const client = run.client;
  const found = (await client.volumes.list()).find((volume) => volume.id === volumeId);
  if (!found) return {};
  const machineId = found.machine_id ?? null;
  const sizeGb = found.disk_space;
  if (machineId === null || typeof sizeGb !== "number") {
    throw new Error(
      `volume V.${volumeId} cannot be imported: the service shows no ` +
        (machineId === null ? "machine" : "size") +
        " for it, and a program must declare where it lives and how big it is",
    );
  }
  const volumeOfferQuery = { machineId: { eq: machineId } };
  const offer = await client.offers
    .searchVolumes(volumeOfferQuery)
    .then((search) => search.offers[0])
    .catch(() => undefined);
  const inputs: VolumeInputs = { volumeOfferQuery, sizeGb };
  const volumeName = `V.${volumeId}`;
  return {
    id: volumeName,
    props: {
      ...inputs,
      volumeName,
      volumeId,
      machineId,
      ...(offer === undefined ? {} : { offerAskId: offer.askId, offer }),
      dollarsPerHour: volumeDollarsPerHour(found),
    },
    inputs,
  };
}

// ---- The resource -------------------------------------------------------------------------

export interface VolumeArgs {
  /** The volume ask (offer) to accept; see `getVolumeOffers`. Give this or volumeOfferQuery. */
  askId?: pulumi.Input<number>;
  /**
   * Accept the cheapest volume offer matching this query (and offering at least sizeGb), e.g.
   * `{ geolocation: "US", reliability: { gte: 0.99 } }`; each offer is checked against the
   * query. Changing it replaces the volume only when the volume no longer matches.
   */
  volumeOfferQuery?: pulumi.Input<VolumeOfferQuery | string>;
  /** Size in GB (default 15). */
  sizeGb?: pulumi.Input<number>;
  /**
   * The offer query and cap of the instance that will link the volume, e.g.
   * `{ offerQuery: { gpuName: "RTX 4090" }, maxDollarsPerHour: 1 }`: the volume goes to a
   * machine that has such an offer (the cheapest). Never replaces the volume.
   */
  forInstance?: pulumi.Input<{
    offerQuery: pulumi.Input<InstanceOfferQuery | string>;
    maxDollarsPerHour?: pulumi.Input<number>;
  }>;
}

/** Every input is also an output, holding the value as applied (`volume.sizeGb`). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- typed outputs, set by the engine
export interface Volume extends OutputsOf<VolumeOutputs> {}

/** A disk volume, created by accepting a volume ask. Any change replaces it. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Volume extends DynamicResource {
  declare readonly askId: pulumi.Output<number>;
  declare readonly sizeGb: pulumi.Output<number>;
  /** `V.<number>`. */
  declare readonly volumeName: pulumi.Output<string>;
  declare readonly volumeId: pulumi.Output<number>;
  /** The ask accepted. */
  declare readonly offerAskId: pulumi.Output<number>;
  /** The machine the volume lives on; an Instance linking it is rented there. */
  declare readonly machineId: pulumi.Output<number | null>;
  /** What the volume costs, $/hour, as the service reports it; kept current by refresh. */
  declare readonly dollarsPerHour: pulumi.Output<number | null>;

  constructor(name: string, args: VolumeArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/volume"),
      name,
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        // Every reported output is named here, or the resource would not expose it; the inputs
        // left out are outputs made when first read (appliedDefaults, below).
        ...reportedOutputs(volumeReportedOutputs),
        // As the service shows it, kept current by refresh.
        sizeGb: args.sizeGb,
      },
      opts,
      "Volume",
    );
    appliedDefaults(this, volumeInputsSchema, args, { except: ["sizeGb"] });
  }
}

/** What the service reports of a volume, kept current by refresh: the outputs besides its inputs. */
const volumeReportedOutputs = [
  "volumeName",
  "volumeId",
  "offerAskId",
  "machineId",
  "offer",
  "dollarsPerHour",
] as const;
