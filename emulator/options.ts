import { z } from "zod";
import { NotificationTypeKeySchema } from "./accounts/notification-types";
import { InstanceAskSchema, NetworkVolumeAskSchema, VolumeAskSchema } from "./market/asks";

export const EmulatorOptionsSchema = z.object({
  /** A full-access key; more keys, scoped or not, come through POST /_emulator/keys. */
  apiKey: z.string().min(1),
  stateFile: z.string().min(1).optional(),
  /** Polls of an instance before it reaches its boot outcome, unless a queued outcome says otherwise. */
  bootPolls: z.int().nonnegative().default(2),
  /**
   * Boots in wall-clock time instead of polls: an instance reaches its outcome this many
   * seconds after it was created (or started again), whoever polls, plus a jitter of up to
   * `bootJitterSeconds` either way, deterministic per instance id and seed. Queued outcomes
   * keep their own timing.
   */
  bootSeconds: z.number().nonnegative().max(86_400).optional(),
  bootJitterSeconds: z.number().nonnegative().max(86_400).default(0),
  maxSecrets: z.int().nonnegative().default(250),
  /** Seeds the generator behind fault rates, so a run with the same traffic faults the same requests. */
  seed: z.int().optional(),
  volumeAsks: z.array(VolumeAskSchema).optional(),
  instanceAsks: z.array(InstanceAskSchema).optional(),
  /** Replaces the network-volume asks (storage on a cluster, see market/asks.ts). */
  networkVolumeAsks: z.array(NetworkVolumeAskSchema).optional(),
  /** Replaces the seeded catalogue of webhook event keys (GET /api/v0/notification-types/). */
  notificationTypes: z.array(NotificationTypeKeySchema).min(1).optional(),
  /**
   * Lets webhooks point at plain-http and loopback or private addresses, so a test can receive
   * deliveries on 127.0.0.1. Off by default, like the real service, which delivers only to
   * public https addresses.
   */
  allowInsecureWebhooks: z.boolean().default(false),
  /**
   * A generated market beside the seeded asks (the default): `instanceOffers` instance asks
   * and up to `volumeOffers` volume asks over a spread of GPUs, prices, countries and machines,
   * deterministic from `seed` (see market/market-gen.ts). With a market, renting is exclusive: an
   * on-demand ask that is rented leaves the market until its instance is destroyed. `false`:
   * the seeded asks alone, each rentable any number of times (the small market tests use).
   */
  market: z
    .union([
      z.literal(false),
      z.object({
        seed: z.int().default(1),
        instanceOffers: z.int().nonnegative().max(100_000).default(300),
        volumeOffers: z.int().nonnegative().max(10_000).default(36),
      }),
    ])
    .default({ seed: 1, instanceOffers: 300, volumeOffers: 36 }),
  /**
   * `documented`: each endpoint limited per API key at the threshold its 429 example documents
   * (control/rate-limits.ts says how it is read), refused with the documented bodies. `off` (the
   * default) limits nothing.
   */
  rateLimits: z.enum(["off", "documented"]).default("off"),
  /**
   * Refuse what the service does not document (control/service-routing.ts): a method the
   * service does not route at a path answers 405, as its router would. Off by default, for old
   * scripts.
   */
  strict: z.boolean().default(false),
  /**
   * Seconds a worker instance of a deleted worker group or endpoint stays on the account (shown
   * stopped) before it is gone: the service destroys workers asynchronously.
   */
  workerReleaseSeconds: z.number().nonnegative().max(3600).default(1),
  /**
   * Runs each running instance's onstart as a local process (`sh -c`), in a directory of its
   * own, with the environment its container would have (instances/onstart-runner.ts): for
   * testing what an onstart does, such as stopping its own instance with CONTAINER_API_KEY. Off
   * by default: it runs the programs' commands on this machine.
   */
  runOnstart: z.boolean().default(false),
  /**
   * Serves each instance's mapped TCP ports on the loopback address, which its row then reports
   * (instances/port-server.ts): a stand-in app, or with `runOnstart` the onstart's own server.
   */
  servePorts: z.boolean().default(false),
  /** Webhooks allowed per account; the real service allows four. */
  maxWebhooks: z.int().nonnegative().default(4),
});
export type EmulatorOptions = z.input<typeof EmulatorOptionsSchema>;
export type EmulatorSettings = z.output<typeof EmulatorOptionsSchema>;

export const StartOptionsSchema = EmulatorOptionsSchema.extend({
  port: z.int().min(0).max(65535).default(0),
  host: z.string().min(1).default("127.0.0.1"),
});
export type StartOptions = z.input<typeof StartOptionsSchema>;

/** Validates options, keeping zod's text (which never quotes the inputs, so never the key). */
export function parseOptions<S extends z.ZodType>(schema: S, options: unknown): z.output<S> {
  const result = schema.safeParse(options);
  if (!result.success) {
    throw new Error(`Invalid emulator options: ${z.prettifyError(result.error)}`);
  }
  return result.data;
}
