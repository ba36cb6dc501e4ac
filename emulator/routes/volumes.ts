import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../context";
import { ApiError, check } from "../http";
import type { Volume } from "../state";

const AcceptVolumeAskSchema = z.object({
  id: z.int().positive(),
  size: z.int().positive(),
});
const DeleteVolumeQuerySchema = z.object({
  id: z
    .string()
    .regex(/^[0-9]+$/, "must be a volume id")
    .transform(Number),
});

function describeVolume(volume: Volume) {
  return {
    id: volume.id,
    name: `V.${String(volume.id)}`,
    status: "created",
    label: volume.label,
    disk_space: volume.sizeGb,
    ask_id: volume.askId,
  };
}

export function registerVolumeRoutes(app: FastifyInstance, { store }: EmulatorContext): void {
  // Accepting an ask spends money, so it needs the write permission; the asks stay available.
  app.put("/api/v0/volumes/", { config: { category: "instance_write" } }, async (request) => {
    const { id, size } = check(AcceptVolumeAskSchema, request.body, "invalid_args");
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
        label: null,
        createdAtMs: Date.now(),
      };
      state.volumes.push(created);
      return created;
    });
    return { success: true, volume_name: describeVolume(volume).name };
  });

  // owner=me&type=all_volume is what clients send; the emulator has one owner and one kind.
  app.get("/api/v0/volumes/", { config: { category: "instance_read" } }, async () => {
    return { volumes: store.state.volumes.map(describeVolume) };
  });

  app.delete("/api/v0/volumes/", { config: { category: "instance_write" } }, async (request) => {
    const { id } = check(DeleteVolumeQuerySchema, request.query, "invalid_args");
    const volume = store.state.volumes.find((v) => v.id === id);
    if (!volume) throw new ApiError(404, "no_such_volume", `No volume with id ${String(id)}.`);
    store.mutate((state) => (state.volumes = state.volumes.filter((v) => v !== volume)));
    return { success: true };
  });
}
