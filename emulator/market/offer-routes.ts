import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
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
import type { EmulatorSettings } from "../options";
import { type Query, type Row, type SearchSpec, parseQuery, runQuery } from "../shared/query";
import type { State } from "../shared/state";

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
/** Priced for the size a create makes by default (15 GB). */
export const VolumeSearchOptionsSchema = z.object({
  allocated_storage: z.number().positive().default(15),
});

/** Every field a row or its filter view has: the same for every ask, so read off a sample. */
export function fieldsOf(view: Row): ReadonlySet<string> {
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

const VOLUME_SEARCH: SearchSpec<typeof VolumeSearchOptionsSchema> = {
  fields: fieldsOf(
    volumeOfferFilterView(SAMPLE_VOLUME_ASK, describeVolumeOffer(SAMPLE_VOLUME_ASK, 1, 0)),
  ),
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

export function registerOfferRoutes(
  app: FastifyInstance,
  { store, settings, faults }: EmulatorContext,
): void {
  const config = { category: "instance_read" } as const;
  const nowSeconds = () => Date.now() / 1000;

  app.post("/api/v0/bundles/", { config }, async (request) => {
    const query = parseQuery(request.body, BUNDLE_SEARCH);
    const found = findInstanceOffers(store.state, settings, query, faults.ignoredSearchField);
    const [first] = found;
    if (first && faults.takeAfterSearch()) {
      store.mutate((state) => {
        state.instanceAsks = state.instanceAsks.filter((ask) => ask.id !== first.ask.id);
      });
    }
    return { offers: found.map(({ offer }, index) => ({ ...offer, rn: index + 1 })) };
  });

  // Both forms of the official client fetch this with no key while loading (the older one fails
  // to start without it), so it is served without one: the market's GPU names.
  app.get("/api/v0/gpu_names/unique/", { config: { public: true } }, async () => ({
    gpu_names: [...new Set(store.state.instanceAsks.map((ask) => ask.gpuName))].sort(),
  }));

  app.post("/api/v0/volumes/search/", { config }, async (request) => {
    const query = parseQuery(request.body, VOLUME_SEARCH);
    const now = nowSeconds();
    const rows = store.state.volumeAsks.map((ask) => ({
      ask,
      offer: describeVolumeOffer(ask, query.options.allocated_storage, now),
    }));
    const found = runQuery(
      rows,
      query,
      ({ ask, offer }) => volumeOfferFilterView(ask, offer),
      faults.ignoredSearchField,
    );
    return { offers: found.map(({ offer }) => offer) };
  });
}
