import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, invalidArgs } from "../shared/http";
import type { State } from "../shared/state";
import type { Overlay } from "./instance-state";
import {
  checkCanJoin,
  clusterIds,
  freeAddress,
  members,
  removeOverlay,
  subnetOf,
} from "./overlays";

/**
 * Overlay networks, as the official client's `create/show/join/delete overlay` send them (no
 * OpenAPI entry exists). The client prints the `msg` of every answer, success or failure.
 */

// Names travel in `-n NAME` env entries, so they cannot hold spaces.
const NameSchema = z
  .string()
  .min(1, "must not be empty")
  .max(64, "is limited to 64 characters")
  .regex(/^\S+$/, "must not contain spaces");
const CreateOverlaySchema = z.object({ cluster_id: z.int().positive(), name: NameSchema });
const JoinOverlaySchema = z.object({ name: z.string().min(1), instance_id: z.int().positive() });
/** The client sends `overlay_id` for a number and `overlay_name` for anything else. */
const DeleteOverlaySchema = z.union(
  [z.object({ overlay_id: z.int().positive() }), z.object({ overlay_name: z.string().min(1) })],
  { error: "give overlay_id (a number) or overlay_name" },
);

function noSuchOverlay(which: string): ApiError {
  return new ApiError(404, "no_such_overlay", `No overlay ${which}.`);
}

function describeOverlay(overlay: Overlay, state: State) {
  return {
    overlay_id: overlay.id,
    name: overlay.name,
    internal_subnet: overlay.subnet,
    cluster_id: overlay.clusterId,
    instances: members(state, overlay.id).map((instance) => instance.id),
  };
}

export function registerOverlayRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, faults } = ctx;
  // The service's scope list: reading overlays is user_read, changing them user_write.
  const read = { category: "user_read" } as const;
  const write = { category: "user_write" } as const;

  app.post("/api/v0/overlay/", { config: write }, async (request) => {
    const { cluster_id: clusterId, name } = check(
      CreateOverlaySchema,
      request.body,
      "invalid_args",
    );
    if (!clusterIds(store.state).has(clusterId)) {
      throw invalidArgs(`cluster_id: no physical cluster ${String(clusterId)}`);
    }
    // Joins name an overlay alone, so a name is the account's once.
    if (store.state.overlays.some((o) => o.name === name)) {
      throw invalidArgs(`name: an overlay named ${name} already exists`);
    }
    const overlay = store.mutate((state) => {
      const id = state.nextIds.overlay++;
      const created: Overlay = {
        id,
        name,
        clusterId,
        subnet: subnetOf(id),
        createdAtMs: ctx.clock.nowMs(),
      };
      state.overlays.push(created);
      return created;
    });
    return {
      success: true,
      msg: `Overlay ${name} created on cluster ${String(clusterId)} (subnet ${overlay.subnet}).`,
      overlay_id: overlay.id,
    };
  });

  // A bare list, which the client iterates.
  app.get("/api/v0/overlay/", { config: read }, async () => {
    const { state } = store;
    return state.overlays.map((overlay) => describeOverlay(overlay, state));
  });

  app.put("/api/v0/overlay/", { config: write }, async (request) => {
    const { name, instance_id: id } = check(JoinOverlaySchema, request.body, "invalid_args");
    const { state } = store;
    const overlay = state.overlays.find((o) => o.name === name);
    if (!overlay) throw noSuchOverlay(`named ${name}`);
    const instance = state.instances.find((i) => i.id === id);
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    checkCanJoin(overlay, {
      ask: instance.offer,
      runtype: instance.runtype,
      current: instance.overlay,
      label: `instance ${String(id)}`,
    });
    const address =
      instance.overlay?.overlayId === overlay.id
        ? instance.overlay.address
        : freeAddress(state, overlay, faults.takeOverlayAddressSkip());
    store.mutate(() => (instance.overlay = { overlayId: overlay.id, address }));
    return { success: true, msg: `Instance ${String(id)} joined overlay ${name} at ${address}.` };
  });

  app.delete("/api/v0/overlay/", { config: write }, async (request) => {
    const which = check(DeleteOverlaySchema, request.body ?? {}, "invalid_args");
    const overlay =
      "overlay_id" in which
        ? store.state.overlays.find((o) => o.id === which.overlay_id)
        : store.state.overlays.find((o) => o.name === which.overlay_name);
    if (!overlay) {
      throw noSuchOverlay(
        "overlay_id" in which ? String(which.overlay_id) : `named ${which.overlay_name}`,
      );
    }
    const left = store.mutate((state) => removeOverlay(state, overlay));
    return {
      success: true,
      msg: `Overlay ${overlay.name} deleted; instances removed from it: [${left.join(", ")}].`,
    };
  });
}
