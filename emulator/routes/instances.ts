import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../context";
import { ApiError, check, pathId } from "../http";
import { describeInstance } from "../lifecycle";
import { accountHasSshKey } from "../sshKeys";
import { type Instance, RuntypeSchema } from "../state";

const PAGE_SIZE = 25;

// The real command-line client sends null for options it was not given.
const CreateInstanceSchema = z.object({
  client_id: z.string().nullish(),
  image: z.string().min(1, "must name an image"),
  disk: z.number().min(8, "must be at least 8 GB"),
  onstart: z
    .string()
    .max(4048, "is limited to 4048 characters; gzip and base64-encode longer scripts")
    .nullish(),
  env: z.record(z.string(), z.string()).nullish(),
  label: z.string().nullish(),
  runtype: RuntypeSchema.nullish(),
  price: z.number().nonnegative().nullish(),
  image_login: z.string().nullish(),
});
const RelabelSchema = z.object({ label: z.string() });
const ListQuerySchema = z.object({
  next_token: z
    .string()
    .transform((token) => Buffer.from(token, "base64url").toString("utf8"))
    .pipe(z.string().regex(/^after:[0-9]+$/, "is not a token this service issued"))
    .transform((decoded) => Number(decoded.slice("after:".length)))
    .optional(),
});

function nextToken(lastId: number): string {
  return Buffer.from(`after:${String(lastId)}`).toString("base64url");
}

export function registerInstanceRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, settings } = ctx;
  const read = { category: "instance_read" } as const;
  const write = { category: "instance_write" } as const;
  const find = (params: unknown): Instance | undefined => {
    const id = pathId(params);
    return store.state.instances.find((i) => i.id === id);
  };
  // Reading an instance is what moves it along its boot: each show or list counts one poll.
  const poll = (instances: Instance[]) => {
    store.mutate(() => {
      for (const instance of instances) instance.polls += 1;
    });
    const now = Date.now();
    return instances.map((instance) => describeInstance(instance, now));
  };

  // The spec says POST; the real service routes PUT too.
  app.route({
    method: ["POST", "PUT"],
    url: "/api/v0/asks/:id/",
    config: write,
    handler: async (request) => {
      const askId = pathId(request.params);
      const ask = store.state.instanceAsks.find((a) => a.id === askId);
      if (!ask) throw new ApiError(404, "no_such_ask", "No instance ask with that id.");
      const input = check(CreateInstanceSchema, request.body, "invalid_args");
      const runtype = input.runtype ?? "ssh";
      if (runtype === "vm" && !accountHasSshKey(store.state)) {
        throw new ApiError(400, "no_ssh_key_for_vm", "Register an SSH key before creating a VM.");
      }
      const instance = store.mutate((state) => {
        const boot = state.bootQueue.shift() ?? { status: "running" };
        const created: Instance = {
          id: state.nextIds.instance++,
          offer: structuredClone(ask),
          image: input.image,
          diskGb: input.disk,
          onstart: input.onstart ?? null,
          env: input.env ?? {},
          label: input.label ?? null,
          runtype,
          bidDollarsPerHour: input.price ?? null,
          imageLogin: input.image_login ?? null,
          createdAtMs: Date.now(),
          polls: 0,
          boot: { ...boot, afterPolls: boot.afterPolls ?? settings.bootPolls },
        };
        state.instances.push(created);
        return created;
      });
      return { success: true, new_contract: instance.id };
    },
  });

  app.get("/api/v0/instances/:id/", { config: read }, async (request) => {
    const instance = find(request.params);
    return { instances: instance ? (poll([instance])[0] ?? null) : null };
  });

  app.get("/api/v1/instances/", { config: read }, async (request) => {
    const { next_token: afterId = 0 } = check(ListQuerySchema, request.query, "invalid_args");
    const remaining = store.state.instances
      .filter((i) => i.id > afterId)
      .sort((a, b) => a.id - b.id);
    const page = remaining.slice(0, PAGE_SIZE);
    const last = page.at(-1);
    return {
      instances: poll(page),
      next_token: remaining.length > PAGE_SIZE && last ? nextToken(last.id) : null,
      total_instances: store.state.instances.length,
    };
  });

  app.put("/api/v0/instances/:id/", { config: write }, async (request) => {
    const instance = find(request.params);
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    const { label } = check(RelabelSchema, request.body, "invalid_args");
    store.mutate(() => (instance.label = label));
    return { success: true };
  });

  app.delete("/api/v0/instances/:id/", { config: write }, async (request) => {
    const instance = find(request.params);
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    store.mutate((state) => {
      state.instances = state.instances.filter((i) => i !== instance);
      state.copies = state.copies.filter(
        (c) => c.srcInstanceId !== instance.id && c.dstInstanceId !== instance.id,
      );
    });
    return { success: true };
  });
}
