import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../context";
import { check } from "../http";

/** Filters are accepted and ignored: the emulator's few asks all match. */
const SearchQuerySchema = z.record(z.string(), z.unknown()).optional();

export function registerOfferRoutes(app: FastifyInstance, { store }: EmulatorContext): void {
  const config = { category: "instance_read" } as const;

  app.post("/api/v0/bundles/", { config }, async (request) => {
    check(SearchQuerySchema, request.body, "invalid_args");
    return {
      offers: store.state.instanceAsks.map((ask) => ({
        id: ask.id,
        gpu_name: ask.gpuName,
        num_gpus: ask.numGpus,
        gpu_ram: ask.gpuRamMb,
        dph_total: ask.dollarsPerHour,
        disk_space: ask.diskGb,
        geolocation: ask.geolocation,
      })),
    };
  });

  app.post("/api/v0/volumes/search/", { config }, async (request) => {
    check(SearchQuerySchema, request.body, "invalid_args");
    return {
      offers: store.state.volumeAsks.map((ask) => ({
        id: ask.id,
        disk_space: ask.diskGb,
        storage_cost: ask.storageCostPerGbMonth,
        geolocation: ask.geolocation,
      })),
    };
  });
}
