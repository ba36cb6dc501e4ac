import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../shared/context";
import { parseQuery } from "../shared/query";
import {
  BUNDLE_SEARCH,
  NETWORK_VOLUME_SEARCH,
  VOLUME_SEARCH,
  findInstanceOffers,
  findNetworkVolumeOffers,
  findVolumeOffers,
} from "./offer-search";

export function registerOfferRoutes(
  app: FastifyInstance,
  { store, settings, faults }: EmulatorContext,
): void {
  const config = { category: "instance_read" } as const;

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
    const found = findVolumeOffers(store.state, query, faults.ignoredSearchField);
    return { offers: found.map(({ offer }) => offer) };
  });

  // As the official client's `search network-volumes` sends it (no OpenAPI entry exists). The
  // service's scope list puts it under misc, with offer searches.
  app.post("/api/v0/network_volumes/search/", { config: { category: "misc" } }, async (request) => {
    const query = parseQuery(request.body, NETWORK_VOLUME_SEARCH);
    const found = findNetworkVolumeOffers(store.state, query, faults.ignoredSearchField);
    return { offers: found.map(({ offer }) => offer) };
  });
}
