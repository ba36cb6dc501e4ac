import type { FastifyInstance } from "fastify";
import { NetworkVolumeAskSchema, type NetworkVolume } from "../market/cluster-state";
import type { EmulatorContext } from "../shared/context";
import { check, invalidArgs } from "../shared/http";
import {
  describeNetworkVolumeOffer,
  freeGb,
  networkVolumeOfferFilterView,
} from "./network-volumes";
import { type SearchSpec, parseQuery, runQuery } from "../shared/query";
import { fieldsOf, VolumeSearchOptionsSchema } from "../market/offer-routes";
import { AcceptVolumeAskSchema } from "./volume-routes";

/**
 * Network volumes, as the official client's `search network-volumes` and `create
 * network-volume` send them (no OpenAPI entry exists). Listing and deleting go through
 * /api/v0/volumes/ (volume-routes.ts), as the client sends them.
 */

const SAMPLE_ASK = NetworkVolumeAskSchema.parse({
  id: 1,
  clusterId: 1,
  diskGb: 1,
  storageCostPerGbMonth: 1,
  geolocation: "Sample, XX",
});

const NETWORK_VOLUME_SEARCH: SearchSpec<typeof VolumeSearchOptionsSchema> = {
  fields: fieldsOf(
    networkVolumeOfferFilterView(SAMPLE_ASK, describeNetworkVolumeOffer(SAMPLE_ASK, 1, 1, 0)),
  ),
  // The client sends its defaults (verified, external, disk_space) itself, as for local ones.
  defaults: {},
  defaultLimit: 64,
  options: VolumeSearchOptionsSchema,
};

export function registerNetworkVolumeRoutes(
  app: FastifyInstance,
  { store, faults }: EmulatorContext,
): void {
  // The service's scope list: searching is misc (with offer searches), creating instance_write.
  app.post("/api/v0/network_volumes/search/", { config: { category: "misc" } }, async (request) => {
    const query = parseQuery(request.body, NETWORK_VOLUME_SEARCH);
    const { state } = store;
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
    const found = runQuery(
      rows,
      query,
      ({ ask, offer }) => networkVolumeOfferFilterView(ask, offer),
      faults.ignoredSearchField,
    );
    return { offers: found.map(({ offer }) => offer) };
  });

  // Several volumes may be cut from one ask, as long as their sizes fit in it.
  app.put(
    "/api/v0/network_volumes/",
    { config: { category: "instance_write" } },
    async (request) => {
      const { id, size, name } = check(AcceptVolumeAskSchema, request.body, "invalid_args");
      const ask = store.state.networkVolumeAsks.find((a) => a.id === id);
      if (!ask) throw invalidArgs(`id: no network volume ask ${String(id)}`);
      const free = freeGb(ask, store.state);
      if (size > free) {
        throw invalidArgs(`size: network volume ask ${String(id)} has ${String(free)} GB left`);
      }
      const volume = store.mutate((state) => {
        const created: NetworkVolume = {
          id: state.nextIds.volume++,
          askId: id,
          clusterId: ask.clusterId,
          sizeGb: size,
          label: name ?? null,
          createdAtMs: Date.now(),
          offer: structuredClone(ask),
        };
        state.networkVolumes.push(created);
        return created;
      });
      return { success: true, volume_name: `V.${String(volume.id)}` };
    },
  );
}
