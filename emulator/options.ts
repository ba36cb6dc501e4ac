import { z } from "zod";

/** Storage a host rents out; accepting it (PUT /api/v0/volumes/) creates a volume. */
export const VolumeAskSchema = z.object({
  id: z.int().positive(),
  diskGb: z.number().positive(),
  storageCostPerGbMonth: z.number().nonnegative(),
  geolocation: z.string(),
});
export type VolumeAsk = z.infer<typeof VolumeAskSchema>;

/** A machine offer; accepting it (POST /api/v0/asks/{id}/) creates an instance. */
export const InstanceAskSchema = z.object({
  id: z.int().positive(),
  gpuName: z.string(),
  numGpus: z.int().positive(),
  gpuRamMb: z.int().positive(),
  dollarsPerHour: z.number().nonnegative(),
  diskGb: z.number().positive(),
  geolocation: z.string(),
});
export type InstanceAsk = z.infer<typeof InstanceAskSchema>;

/** A notification type's full key, `<context>:<slug>`, e.g. `client:low_credit`. */
export const NotificationTypeKeySchema = z
  .string()
  .regex(/^(client|host):[a-z0-9_]+$/, "must look like client:low_credit (<context>:<slug>)");

export const EmulatorOptionsSchema = z.object({
  /** A full-access key; more keys, scoped or not, come through POST /_emulator/keys. */
  apiKey: z.string().min(1),
  stateFile: z.string().min(1).optional(),
  /** Polls of an instance before it reaches its boot outcome, unless a queued outcome says otherwise. */
  bootPolls: z.int().nonnegative().default(2),
  maxSecrets: z.int().nonnegative().default(250),
  /** Seeds the generator behind fault rates, so a run with the same traffic faults the same requests. */
  seed: z.int().optional(),
  volumeAsks: z.array(VolumeAskSchema).optional(),
  instanceAsks: z.array(InstanceAskSchema).optional(),
  /** Replaces the seeded catalogue of webhook event keys (GET /api/v0/notification-types/). */
  notificationTypes: z.array(NotificationTypeKeySchema).min(1).optional(),
  /**
   * Lets webhooks point at plain-http and loopback or private addresses, so a test can receive
   * deliveries on 127.0.0.1. Off by default, like the real service, which delivers only to
   * public https addresses.
   */
  allowInsecureWebhooks: z.boolean().default(false),
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
