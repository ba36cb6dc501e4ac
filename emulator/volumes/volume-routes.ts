import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { freeGb } from "../market/network-volume-offers";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, invalidArgs } from "../shared/http";
import { findVolume, mountedBy } from "./mounts";
import { describeNetworkVolume, describeVolume } from "./volume-rows";
import type { NetworkVolume, Volume } from "./volume-state";

/** Accepting a volume ask, local or network, as the official client's create commands send it. */
const AcceptVolumeAskSchema = z.object({
  id: z.int().positive(),
  /** The OpenAPI's default, as the official client's. */
  size: z.int().positive().default(15),
  /** What the official client's `create volume -n NAME` sends. */
  name: z.string().max(256).nullish(),
});
const VolumeIdSchema = z.union([
  z.int().positive(),
  z
    .string()
    .regex(/^[0-9]+$/)
    .transform(Number),
]);
/** The official client sends the id as a query parameter, the description as a body field. */
const DeleteVolumeSchema = z.object({ id: VolumeIdSchema });
/** `type` as the official client sends it (`show volumes --type local|network|all`). */
const ListQuerySchema = z.object({ type: z.string().optional() });

/**
 * The account's volumes, local and network. Network volumes are created as the official client's
 * `create network-volume` sends it (no OpenAPI entry exists); both kinds are listed and deleted
 * through /api/v0/volumes/, as the client sends them.
 */
export function registerVolumeRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store } = ctx;
  // Accepting an ask spends money, so it needs the write permission; the asks stay available.
  app.put("/api/v0/volumes/", { config: { category: "instance_write" } }, async (request) => {
    const { id, size, name } = check(AcceptVolumeAskSchema, request.body, "invalid_args");
    const ask = store.state.volumeAsks.find((a) => a.id === id);
    if (!ask) throw new ApiError(400, "invalid_args", `id: no volume ask ${String(id)}`);
    if (size > ask.diskGb) {
      throw new ApiError(
        400,
        "invalid_args",
        `size: ask ${String(id)} offers at most ${String(ask.diskGb)} GB`,
      );
    }
    const volume = store.mutate((state) => {
      const created: Volume = {
        id: state.nextIds.volume++,
        askId: id,
        sizeGb: size,
        label: name ?? null,
        createdAtMs: ctx.clock.nowMs(),
        offer: structuredClone(ask),
      };
      state.volumes.push(created);
      return created;
    });
    return { success: true, volume_name: `V.${String(volume.id)}` };
  });

  // owner=me is what clients send (the emulator has one owner); `type` picks local_volume,
  // network_volume or both (all_volume, or anything else, as the clients read it).
  app.get("/api/v0/volumes/", { config: { category: "instance_read" } }, async (request) => {
    const { state } = store;
    const parsed = ListQuerySchema.safeParse(request.query);
    const type = parsed.success ? parsed.data.type : undefined;
    const local = state.volumes.map((volume) => ({
      id: volume.id,
      row: describeVolume(volume, state),
    }));
    const network = state.networkVolumes.map((volume) => ({
      id: volume.id,
      row: describeNetworkVolume(volume, state),
    }));
    const shown =
      type === "local_volume"
        ? local
        : type === "network_volume"
          ? network
          : [...local, ...network];
    // One id counter for both kinds: by id is the order they were made in.
    return { volumes: shown.sort((a, b) => a.id - b.id).map(({ row }) => row) };
  });

  app.delete("/api/v0/volumes/", { config: { category: "instance_write" } }, async (request) => {
    const query = z.object({ id: z.unknown() }).safeParse(request.query);
    const input = query.success && query.data.id !== undefined ? query.data : request.body;
    const parsed = DeleteVolumeSchema.safeParse(input);
    if (!parsed.success) {
      throw new ApiError(400, "invalid_args", "Please provide a valid volume ID.");
    }
    const found = findVolume(store.state, parsed.data.id);
    if (!found) {
      throw new ApiError(404, "no_such_volume", "Volume with that ID does not exist.");
    }
    // The service's guide: a volume mounted by an instance, running or stopped, is not deleted.
    const users = mountedBy(store.state, found.volume.id);
    if (users.length > 0) {
      throw new ApiError(
        400,
        "invalid_args",
        `Volume V.${String(found.volume.id)} is mounted by instance ${users.join(", ")}: ` +
          "destroy every instance using it before deleting it.",
      );
    }
    store.mutate((state) => {
      state.volumes = state.volumes.filter((v) => v.id !== found.volume.id);
      state.networkVolumes = state.networkVolumes.filter((v) => v.id !== found.volume.id);
    });
    return { success: true };
  });

  // The service's scope list: creating a network volume is instance_write. Several volumes may
  // be cut from one ask, as long as their sizes fit in it.
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
          createdAtMs: ctx.clock.nowMs(),
          offer: structuredClone(ask),
        };
        state.networkVolumes.push(created);
        return created;
      });
      return { success: true, volume_name: `V.${String(volume.id)}` };
    },
  );
}
