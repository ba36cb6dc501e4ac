import { z } from "zod";
import type { EmulatorSettings } from "../options";
import { type Query, type Row, type SearchSpec, runQuery } from "../shared/query";
import type { State } from "../shared/state";
import { NetworkVolumeAskSchema } from "./asks";
import {
  describeNetworkVolumeOffer,
  freeGb,
  networkVolumeOfferFilterView,
} from "./network-volume-offers";
import {
  DEFAULT_ALLOCATED_STORAGE_GB,
  type OfferType,
  SAMPLE_INSTANCE_ASK,
  SAMPLE_VOLUME_ASK,
  describeInstanceOffer,
  describeVolumeOffer,
  heldAskIds,
  instanceOfferFilterView,
  volumeOfferFilterView,
} from "./offers";

/**
 * The market's three searches in the service's query language: instance offers (bundles),
 * volume offers, and network-volume offers. Each says which fields it knows and what a query
 * leaves out; the routes answer what these find, and the serverless engine rents from them.
 */

/** The official client spells on-demand with a dash, the description without. */
const OfferTypeSchema = z
  .enum(["on-demand", "ondemand", "bid", "reserved"])
  .transform((type): OfferType => (type === "ondemand" ? "on-demand" : type));

const BundleOptionsSchema = z.object({
  type: OfferTypeSchema.default("on-demand"),
  allocated_storage: z.number().positive().default(DEFAULT_ALLOCATED_STORAGE_GB),
  /** Deprecated; the emulator does not bundle. */
  disable_bundling: z.boolean().optional(),
});

/** Volumes are priced for the size a create makes by default (spec: 15 GB). */
const VolumeSearchOptionsSchema = z.object({
  allocated_storage: z.number().positive().default(15),
});

/** Every field a row or its filter view has: the same for every ask, so read off a sample. */
function fieldsOf(view: Row): ReadonlySet<string> {
  return new Set(Object.keys(view));
}

export const BUNDLE_SEARCH: SearchSpec<typeof BundleOptionsSchema> = {
  fields: fieldsOf(
    instanceOfferFilterView(
      SAMPLE_INSTANCE_ASK,
      describeInstanceOffer(
        SAMPLE_INSTANCE_ASK,
        { type: "on-demand", allocatedStorageGb: 8 },
        [],
        0,
      ),
    ),
  ),
  // The description's defaults: what a query does not name, it gets. (`external eq false` is
  // the official client's own default, which it sends; the package sends it too.)
  defaults: { verified: { eq: true }, rentable: { eq: true }, rented: { eq: false } },
  options: BundleOptionsSchema,
};

export const VOLUME_SEARCH: SearchSpec<typeof VolumeSearchOptionsSchema> = {
  fields: fieldsOf(
    volumeOfferFilterView(SAMPLE_VOLUME_ASK, describeVolumeOffer(SAMPLE_VOLUME_ASK, 1, 0)),
  ),
  defaults: {},
  defaultLimit: 64,
  options: VolumeSearchOptionsSchema,
};

const SAMPLE_NETWORK_VOLUME_ASK = NetworkVolumeAskSchema.parse({
  id: 1,
  clusterId: 1,
  diskGb: 1,
  storageCostPerGbMonth: 1,
  geolocation: "Sample, XX",
});

export const NETWORK_VOLUME_SEARCH: SearchSpec<typeof VolumeSearchOptionsSchema> = {
  fields: fieldsOf(
    networkVolumeOfferFilterView(
      SAMPLE_NETWORK_VOLUME_ASK,
      describeNetworkVolumeOffer(SAMPLE_NETWORK_VOLUME_ASK, 1, 1, 0),
    ),
  ),
  // The client sends its defaults (verified, external, disk_space) itself, as for local ones.
  defaults: {},
  defaultLimit: 64,
  options: VolumeSearchOptionsSchema,
};

/** Instance offers a bundles query finds, as priced rows beside their asks. */
export function findInstanceOffers(
  state: State,
  settings: EmulatorSettings,
  query: Query<z.output<typeof BundleOptionsSchema>>,
  ignoredField?: string,
) {
  const pricing = {
    type: query.options.type,
    allocatedStorageGb: query.options.allocated_storage,
  };
  const { instanceAsks, volumeAsks, instances } = state;
  const now = Date.now() / 1000;
  const held = settings.market ? heldAskIds(instances) : new Set<number>();
  const rows = instanceAsks.map((listed) => {
    const ask = held.has(listed.id) ? { ...listed, rented: true } : listed;
    return { ask, offer: describeInstanceOffer(ask, pricing, volumeAsks, now) };
  });
  return runQuery(
    rows,
    query,
    ({ ask, offer }) => instanceOfferFilterView(ask, offer),
    ignoredField,
  );
}

/** Volume offers a volume query finds, priced for its allocated_storage. */
export function findVolumeOffers(
  state: State,
  query: Query<z.output<typeof VolumeSearchOptionsSchema>>,
  ignoredField?: string,
) {
  const now = Date.now() / 1000;
  const rows = state.volumeAsks.map((ask) => ({
    ask,
    offer: describeVolumeOffer(ask, query.options.allocated_storage, now),
  }));
  return runQuery(rows, query, ({ ask, offer }) => volumeOfferFilterView(ask, offer), ignoredField);
}

/** Network-volume offers a volume query finds, each with the GB its ask has left. */
export function findNetworkVolumeOffers(
  state: State,
  query: Query<z.output<typeof VolumeSearchOptionsSchema>>,
  ignoredField?: string,
) {
  const now = Date.now() / 1000;
  const rows = state.networkVolumeAsks.map((ask) => ({
    ask,
    offer: describeNetworkVolumeOffer(
      ask,
      freeGb(ask, state),
      query.options.allocated_storage,
      now,
    ),
  }));
  return runQuery(
    rows,
    query,
    ({ ask, offer }) => networkVolumeOfferFilterView(ask, offer),
    ignoredField,
  );
}
