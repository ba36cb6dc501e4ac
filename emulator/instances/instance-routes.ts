import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { accountHasSshKey } from "../accounts/ssh-keys";
import { heldAskIds } from "../market/offers";
import type { EmulatorContext } from "../shared/context";
import { envFromDockerFlags } from "../shared/docker-flags";
import { ApiError, check, pathId } from "../shared/http";
import type { State } from "../shared/state";
import { findVisibleTemplate, noteLaunch, templateDefaults } from "../templates/template-launch";
import { placementOf } from "./create-placement";
import { addInstance } from "./instance-create";
import { pageOf, parseListQuery } from "./instance-list";
import { describeInstance } from "./instance-row";
import { type Instance, RuntypeSchema } from "./instance-state";
import { bootTimingOf, start, stop } from "./lifecycle";

/**
 * The launch mode. The official client sends space-separated tokens ("ssh_direc ssh_proxy",
 * "jupyter_proxy ssh_proxy"); the description lists the single words. What runs is one of
 * ssh, jupyter, args or vm, so the tokens are reduced to that.
 */
const launchTokens = new Set([
  ...RuntypeSchema.options,
  "ssh_proxy",
  "ssh_direc",
  "ssh_direct",
  "jupyter_proxy",
  "jupyter_direc",
  "jupyter_direct",
]);
const LaunchModeSchema = z
  .string()
  .trim()
  .refine(
    (mode) => mode.split(/\s+/).every((token) => launchTokens.has(token)),
    "must be ssh, jupyter, args or vm (or the official client's ssh_proxy, ssh_direc, jupyter_proxy, jupyter_direc tokens)",
  )
  .transform((mode) => {
    const tokens = mode.split(/\s+/);
    if (tokens.includes("vm")) return "vm" as const;
    if (tokens.includes("args")) return "args" as const;
    if (tokens.some((token) => token.startsWith("jupyter"))) return "jupyter" as const;
    return "ssh" as const;
  });

// The real command-line client sends null for options it was not given.
const CreateInstanceSchema = z.object({
  client_id: z.string().nullish(),
  /** Optional with a template, which gives it. */
  image: z.string().min(1, "must name an image").nullish(),
  disk: z.number().min(8, "must be at least 8 GB").nullish(),
  /** A template's content hash: its values are the defaults the request's own fields override. */
  template_hash_id: z.string().nullish(),
  onstart: z
    .string()
    .max(4048, "is limited to 4048 characters; gzip and base64-encode longer scripts")
    .nullish(),
  /**
   * The official client sends a dict (`-e K=V` → K: V; `-p`, `-n`, `-v` flags as keys with "1");
   * the description types it as the Docker-flag string, which is read into the same dict.
   */
  env: z
    .union([z.record(z.string(), z.string()), z.string().transform(envFromDockerFlags)])
    .nullish(),
  /** The entrypoint's arguments, a list as the OpenAPI types it (the official client's too). */
  args: z.array(z.string()).nullish(),
  label: z.string().max(1024, "is limited to 1024 characters").nullish(),
  runtype: LaunchModeSchema.nullish(),
  price: z.number().nonnegative().nullish(),
  image_login: z.string().nullish(),
  /** Links an existing local or network volume (`create_new: false`); creating one is not modelled. */
  volume_info: z
    .object({
      create_new: z.literal(false, "only false (link an existing volume) is supported"),
      volume_id: z.int().positive(),
      mount_path: z.string().startsWith("/", "must be an absolute path"),
      size: z.int().nullish(),
    })
    .nullish(),
});
const StateChangeSchema = z.enum(["stopped", "running"], "must be stopped or running");
const ManageSchema = z
  .object({
    state: StateChangeSchema.optional(),
    label: z.string().max(1024, "is limited to 1024 characters").optional(),
  })
  .refine((body) => body.state !== undefined || body.label !== undefined, {
    message: "give state or label",
  });
const IdListSchema = z.array(z.int().positive()).min(1, "must name at least one instance");
const BulkStateSchema = z.object({ ids: IdListSchema, state: StateChangeSchema });
const BulkDestroySchema = z.object({ instance_ids: IdListSchema });

type StateChange = z.infer<typeof StateChangeSchema>;

function destroy(state: State, instance: Instance): void {
  state.instances = state.instances.filter((i) => i !== instance);
  state.copies = state.copies.filter(
    (c) => c.srcInstanceId !== instance.id && c.dstInstanceId !== instance.id,
  );
}

export function registerInstanceRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, settings, clock } = ctx;
  const read = { category: "instance_read" } as const;
  const write = { category: "instance_write" } as const;
  // What an instance's own key may do, on its own instance (accounts/instance-keys.ts).
  const ownKey = {
    show: { ...read, instanceKey: "show" },
    startStop: { ...write, instanceKey: "start-stop" },
    destroy: { ...write, instanceKey: "destroy" },
  } as const;
  const byId = (id: number) => store.state.instances.find((i) => i.id === id);
  // The description answers an id that is not a number with 400, not as an unknown instance.
  const instanceIdOf = (params: unknown): number => {
    const id = pathId(params);
    if (id === undefined) throw new ApiError(400, "invalid_args", "invalid instance_id");
    return id;
  };
  const mustFind = (params: unknown): Instance => {
    const instance = byId(instanceIdOf(params));
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    return instance;
  };
  const changeState = (instance: Instance, change: StateChange) => {
    if (change === "stopped") stop(instance);
    else start(instance, clock.nowMs(), bootTimingOf(settings, instance.id));
  };
  /** Bulk calls answer per id: one unknown id does not stop the others. */
  const forEachId = (ids: number[], apply: (state: State, instance: Instance) => void) => {
    const results = store.mutate((state) =>
      [...new Set(ids)].map((id) => {
        const instance = byId(id);
        if (!instance) {
          return {
            id,
            success: false,
            error: "no_such_instance",
            msg: "No instance with that id.",
          };
        }
        apply(state, instance);
        return { id, success: true };
      }),
    );
    const missing = results.filter((r) => !r.success).map((r) => r.id);
    return {
      success: missing.length === 0,
      ...(missing.length === 0 ? {} : { msg: `No instance with id ${missing.join(", ")}.` }),
      results,
    };
  };

  // PUT is the service's (its OpenAPI, guides and official client); the specification's summary
  // says POST, which the emulator still takes unless strict (control/service-routing.ts).
  app.route({
    method: ["PUT", "POST"],
    url: "/api/v0/asks/:id/",
    config: write,
    handler: async (request) => {
      const askId = pathId(request.params);
      const ask = store.state.instanceAsks.find((a) => a.id === askId);
      if (!ask) throw new ApiError(404, "no_such_ask", "No instance ask with that id.");
      const input = check(CreateInstanceSchema, request.body, "invalid_args");
      const template = input.template_hash_id
        ? findVisibleTemplate(store.state, { hashId: input.template_hash_id })
        : undefined;
      if (input.template_hash_id && !template) {
        throw new ApiError(400, "invalid_args", "template_hash_id: no such template");
      }
      const base = template ? templateDefaults(template) : undefined;
      const image = input.image ?? base?.image;
      if (image === undefined) throw new ApiError(400, "invalid_args", "image: is required");
      const disk = input.disk ?? base?.diskGb;
      if (disk === undefined) throw new ApiError(400, "invalid_args", "disk: is required");
      if (disk < 8) throw new ApiError(400, "invalid_args", "disk: must be at least 8 GB");
      // The ask's disk_space is the most an instance from it can have.
      if (disk > ask.diskGb) {
        throw new ApiError(
          400,
          "invalid_args",
          `disk: ask ${String(askId)} offers at most ${String(ask.diskGb)} GB`,
        );
      }
      // With a market, an on-demand ask someone rents is gone until the instance is destroyed.
      if (settings.market && heldAskIds(store.state.instances).has(ask.id)) {
        throw new ApiError(404, "no_such_ask", "No instance ask with that id.");
      }
      const runtype = input.runtype ?? base?.runtype ?? "ssh";
      if (runtype === "vm" && !accountHasSshKey(store.state)) {
        throw new ApiError(400, "no_ssh_key_for_vm", "Register an SSH key before creating a VM.");
      }
      // The template's flags parsed into the dict, the request's keys winning.
      const env = { ...base?.env, ...input.env };
      const placement = placementOf(
        store.state,
        ask,
        { runtype, env, volumeInfo: input.volume_info ?? undefined },
        () => ctx.faults.takeOverlayAddressSkip(),
      );
      const instance = store.mutate((state) => {
        const nowMs = clock.nowMs();
        if (template) noteLaunch(template, nowMs);
        return addInstance(
          state,
          settings,
          ask,
          {
            image,
            diskGb: disk,
            onstart: input.onstart ?? base?.onstart ?? null,
            args: input.args ?? [],
            env,
            label: input.label ?? null,
            runtype,
            bidDollarsPerHour: input.price ?? null,
            imageLogin: input.image_login ?? base?.imageLogin ?? null,
            volume: placement.volume,
            mounts: placement.mounts,
            overlay: placement.overlay,
            template: base?.template ?? null,
            workerGroupId: null,
          },
          nowMs,
        );
      });
      // The instance's own key, shown here only (see accounts/instance-keys.ts).
      return {
        success: true,
        new_contract: instance.id,
        instance_api_key: ctx.instanceKeys.keyOf(instance.id),
      };
    },
  });

  // Distinct (actual_status, verification, gpu_name) of the account's instances: what the
  // official client offers as filter values. The router prefers this static path to :id.
  app.get("/api/v0/instances/filters/", { config: read }, async () => {
    const now = clock.nowMs();
    const combos = new Map<
      string,
      { actual_status: string | null; verification: string; gpu_name: string }
    >();
    for (const instance of store.state.instances) {
      const { actual_status, verification, gpu_name } = describeInstance(instance, now);
      const combo = { actual_status, verification, gpu_name };
      combos.set(JSON.stringify(combo), combo);
    }
    return { success: true, filters: [...combos.values()] };
  });

  // Reading an instance is what moves it along its boot: each show counts one poll.
  app.get("/api/v0/instances/:id/", { config: ownKey.show }, async (request) => {
    const instance = byId(instanceIdOf(request.params));
    if (!instance) return { instances: null };
    store.mutate(() => (instance.polls += 1));
    return { instances: describeInstance(instance, clock.nowMs()) };
  });

  // Each listed instance counts one poll; rows are filtered as that poll leaves them.
  app.get("/api/v1/instances/", { config: read }, async (request) => {
    const query = parseListQuery(request.query);
    const now = clock.nowMs();
    const entries = store.state.instances.map((instance) => ({
      item: instance,
      row: describeInstance(instance, now, 1),
    }));
    const page = pageOf(entries, query);
    store.mutate(() => {
      for (const instance of page.items) instance.polls += 1;
    });
    return {
      success: true,
      instances_found: page.rows.length,
      total_instances: page.totalInstances,
      label_counts: page.labelCounts,
      next_token: page.nextToken,
      instances: page.rows,
    };
  });

  // One route for stop/start ({state}) and relabel ({label}); both may come together.
  app.put("/api/v0/instances/:id/", { config: ownKey.startStop }, async (request) => {
    const instance = mustFind(request.params);
    const { state, label } = check(ManageSchema, request.body, "invalid_args");
    store.mutate(() => {
      if (label !== undefined) instance.label = label;
      if (state !== undefined) changeState(instance, state);
    });
    return { success: true };
  });

  app.put("/api/v0/instances/", { config: write }, async (request) => {
    const { ids, state } = check(BulkStateSchema, request.body, "invalid_args");
    return forEachId(ids, (_state, instance) => {
      changeState(instance, state);
    });
  });

  app.delete("/api/v0/instances/:id/", { config: ownKey.destroy }, async (request) => {
    const instance = mustFind(request.params);
    store.mutate((state) => {
      destroy(state, instance);
    });
    return { success: true };
  });

  app.delete("/api/v0/instances/", { config: write }, async (request) => {
    const { instance_ids: ids } = check(BulkDestroySchema, request.body, "invalid_args");
    return forEachId(ids, destroy);
  });
}
