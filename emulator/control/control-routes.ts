import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { PermissionsSchema } from "../accounts/key-ring";
import { InvoiceTypeSchema, PaymentServiceSchema } from "../billing/billing-state";
import { invoiceRow } from "../billing/invoices";
import { notifyOutbid, outbid } from "../instances/bids";
import { BootOutcomeSchema } from "../instances/instance-state";
import { StandInAppSchema } from "../instances/port-server";
import { InstanceAskSchema, NetworkVolumeAskSchema, VolumeAskSchema } from "../market/asks";
import type { EmulatorContext } from "../shared/context";
import { ClockChangeSchema, changeClock, clockReading } from "../shared/clock";
import { ApiError, check, invalidArgs, pathId } from "../shared/http";
import { clearResources } from "../shared/state";
import { FaultsSchema } from "./faults";

const BootsSchema = z.object({ outcomes: z.array(BootOutcomeSchema) });
const AppsSchema = z.object({ apps: z.array(StandInAppSchema) });
const UserUpdateSchema = z.object({
  ssh_key: z.string().optional(),
  credit: z.number().optional(),
  email: z.string().optional(),
});
const NewKeySchema = z.object({
  key: z.string().min(1),
  permissions: PermissionsSchema.optional(),
});
const AsksSchema = z.object({
  volumeAsks: z.array(VolumeAskSchema).optional(),
  instanceAsks: z.array(InstanceAskSchema).optional(),
  networkVolumeAsks: z.array(NetworkVolumeAskSchema).optional(),
});
const OutbidSchema = z.object({ dollarsPerHour: z.number().positive() });
const gpuPercent = z.number().min(0).max(100);
/** One utilization for every GPU, or one per GPU. */
const GpuUtilizationSchema = z.union([
  z.strictObject({ percent: gpuPercent }),
  z.strictObject({ percents: z.array(gpuPercent).min(1) }),
]);
const KeyParamsSchema = z.object({ key: z.string() });
/** A payment, transfer or payout of the account, as GET /api/v1/invoices/ lists it. */
const NewInvoiceSchema = z.strictObject({
  amountDollars: z.number(),
  type: InvoiceTypeSchema.default("credit"),
  service: PaymentServiceSchema.default("stripe_payments"),
  source: z.string().default("stripe"),
  description: z.string().default("Credit purchase"),
  /** Default: now (the emulator's clock). */
  createdAtSeconds: z.number().nonnegative().optional(),
  /** Default: when it was created; null: unpaid. */
  paidAtSeconds: z.number().nonnegative().nullable().optional(),
});
const AskParamsSchema = z.object({
  kind: z.enum(["instance", "volume"]),
  id: z
    .string()
    .regex(/^[0-9]+$/)
    .transform(Number),
});
const AskChangeSchema = z.strictObject({
  dollarsPerHour: z.number().nonnegative().optional(),
  minBidDollarsPerHour: z.number().nonnegative().optional(),
  storageCostPerGbMonth: z.number().nonnegative().optional(),
  reliability: z.number().min(0).max(1).optional(),
});

/** Test controls: no auth, never under /api/, never in the request log. */
export function registerControlRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, keys, faults, requests, clock } = ctx;
  const ok = { success: true };

  app.get("/_emulator/state", async () => store.state);

  app.get("/_emulator/requests", async () => ({
    requests: requests.list(),
    undocumented: requests.undocumented,
  }));
  app.delete("/_emulator/requests", async () => {
    requests.clear();
    return ok;
  });

  app.get("/_emulator/faults", async () => ({ faults: faults.current }));
  app.put("/_emulator/faults", async (request) => {
    faults.set(check(FaultsSchema, request.body, "invalid_args"));
    return { success: true, faults: faults.current };
  });
  app.delete("/_emulator/faults", async () => {
    faults.clear();
    return ok;
  });

  app.put("/_emulator/boots", async (request) => {
    const { outcomes } = check(BootsSchema, request.body, "invalid_args");
    const queued = store.mutate((state) => state.bootQueue.push(...outcomes));
    return { success: true, queued };
  });
  app.delete("/_emulator/boots", async () => {
    store.mutate((state) => (state.bootQueue = []));
    return ok;
  });

  // The stand-in apps behind instances' mapped ports (servePorts, instances/port-server.ts).
  const portServer = () => {
    if (ctx.ports === undefined)
      throw invalidArgs("the emulator does not serve ports (servePorts)");
    return ctx.ports;
  };
  app.put("/_emulator/apps", async (request) => {
    const { apps } = check(AppsSchema, request.body, "invalid_args");
    return { success: true, queued: portServer().queue(apps) };
  });
  app.delete("/_emulator/apps", async () => {
    portServer().clearQueue();
    return ok;
  });
  app.put("/_emulator/instances/:id/app", async (request) => {
    const app = check(StandInAppSchema, request.body, "invalid_args");
    if (!portServer().setApp(pathId(request.params) ?? -1, app)) {
      throw new ApiError(404, "no_such_instance", "No instance with a served port and that id.");
    }
    return ok;
  });

  app.put("/_emulator/user", async (request) => {
    const input = check(UserUpdateSchema, request.body, "invalid_args");
    const user = store.mutate(({ user }) => {
      user.sshKey = input.ssh_key ?? user.sshKey;
      user.creditDollars = input.credit ?? user.creditDollars;
      user.email = input.email ?? user.email;
      return user;
    });
    return { success: true, user };
  });

  app.post("/_emulator/keys", async (request) => {
    const { key, permissions } = check(NewKeySchema, request.body, "invalid_args");
    keys.add(key, permissions);
    return ok;
  });
  app.delete("/_emulator/keys/:key", async (request) => {
    const { key } = check(KeyParamsSchema, request.params, "invalid_args");
    if (!keys.revoke(key)) throw new ApiError(404, "no_such_key", "No such API key.");
    return ok;
  });

  app.put("/_emulator/asks", async (request) => {
    const asks = check(AsksSchema, request.body, "invalid_args");
    store.mutate((state) => {
      state.volumeAsks = asks.volumeAsks ?? state.volumeAsks;
      state.instanceAsks = asks.instanceAsks ?? state.instanceAsks;
      state.networkVolumeAsks = asks.networkVolumeAsks ?? state.networkVolumeAsks;
    });
    return ok;
  });

  // One ask leaves the market (as if someone else rented it), or changes its price.
  app.delete("/_emulator/asks/:kind/:id", async (request) => {
    const { kind, id } = check(AskParamsSchema, request.params, "invalid_args");
    const removed = store.mutate((state) => {
      if (kind === "instance") {
        const before = state.instanceAsks.length;
        state.instanceAsks = state.instanceAsks.filter((ask) => ask.id !== id);
        return before !== state.instanceAsks.length;
      }
      const before = state.volumeAsks.length;
      state.volumeAsks = state.volumeAsks.filter((ask) => ask.id !== id);
      return before !== state.volumeAsks.length;
    });
    if (!removed) throw new ApiError(404, "no_such_ask", `No ${kind} ask ${String(id)}.`);
    return ok;
  });
  app.patch("/_emulator/asks/:kind/:id", async (request) => {
    const { kind, id } = check(AskParamsSchema, request.params, "invalid_args");
    const change = check(AskChangeSchema, request.body, "invalid_args");
    const asks = kind === "instance" ? store.state.instanceAsks : store.state.volumeAsks;
    const ask = asks.find((a) => a.id === id);
    if (!ask) throw new ApiError(404, "no_such_ask", `No ${kind} ask ${String(id)}.`);
    store.mutate(() => Object.assign(ask, change));
    return { success: true, ask };
  });

  // A higher bid takes an interruptible instance's machine.
  app.post("/_emulator/instances/:id/outbid", async (request) => {
    const instance = store.state.instances.find((i) => i.id === pathId(request.params));
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    const { dollarsPerHour } = check(OutbidSchema, request.body, "invalid_args");
    const bid = instance.bidDollarsPerHour;
    if (bid === null) {
      throw new ApiError(400, "invalid_args", "The instance is on-demand: no bid can take it.");
    }
    if (dollarsPerHour <= bid) {
      throw new ApiError(
        400,
        "invalid_args",
        `dollarsPerHour: must be above the instance's bid (${String(bid)} $/hour)`,
      );
    }
    store.mutate(() => {
      outbid(instance, dollarsPerHour);
    });
    notifyOutbid(store.state, ctx.settings, instance);
    return { success: true };
  });

  // What the stand-in nvidia-smi of an instance's onstart reports (instances/stand-in-gpus.ts).
  app.put("/_emulator/instances/:id/gpu-utilization", async (request) => {
    if (ctx.gpus === undefined) {
      throw invalidArgs("the emulator runs no onstart (runOnstart): no nvidia-smi to report");
    }
    const instance = store.state.instances.find((i) => i.id === pathId(request.params));
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    const body = check(GpuUtilizationSchema, request.body, "invalid_args");
    const gpuCount = instance.offer.numGpus;
    const percents =
      "percent" in body ? Array.from({ length: gpuCount }, () => body.percent) : body.percents;
    if (percents.length !== gpuCount) {
      throw invalidArgs(`percents: the instance has ${String(gpuCount)} GPUs, one each`);
    }
    ctx.gpus.set(instance.id, percents);
    return { success: true, percents };
  });

  // The account's time (shared/clock.ts): frozen, moved forward, let run again.
  app.get("/_emulator/clock", async () => clockReading(clock));
  app.put("/_emulator/clock", async (request) => {
    changeClock(clock, check(ClockChangeSchema, request.body, "invalid_args"));
    return { success: true, ...clockReading(clock) };
  });

  app.post("/_emulator/invoices", async (request) => {
    const input = check(NewInvoiceSchema, request.body, "invalid_args");
    const createdAtMs = (input.createdAtSeconds ?? clock.nowMs() / 1000) * 1000;
    const paidAtSeconds =
      input.paidAtSeconds === undefined ? createdAtMs / 1000 : input.paidAtSeconds;
    const invoice = store.mutate((state) => {
      const added = {
        id: state.nextIds.invoice++,
        type: input.type,
        service: input.service,
        source: input.source,
        description: input.description,
        amountDollars: input.amountDollars,
        createdAtMs,
        paidAtMs: paidAtSeconds === null ? null : paidAtSeconds * 1000,
      };
      state.invoices.push(added);
      return added;
    });
    return { success: true, invoice: invoiceRow(invoice) };
  });

  app.post("/_emulator/reset", async () => {
    store.mutate(clearResources);
    ctx.ports?.clearQueue();
    requests.clear();
    faults.clear();
    return ok;
  });
}
