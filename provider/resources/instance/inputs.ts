import { z } from "zod";
import { bidBounds, compileInstanceOfferQuery, OfferQueryError } from "../../client";

// The instance's inputs and outputs: what a program declares and what the stack records.

const askIdSchema = z
  .number({ error: "the id of an instance offer (ask)" })
  .int("an ask id is a whole number")
  .positive("an ask id is positive");

/** A query in either form; checked by compiling it, so the failure names the field or token. */
export const offerQueryInputSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())], {
    error: 'offerQuery must be a query object ({ gpuName: "RTX 4090", ... }) or a query string',
  })
  .superRefine((query, ctx) => {
    try {
      compileInstanceOfferQuery(query);
    } catch (error) {
      if (!(error instanceof OfferQueryError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message });
    }
  });

export const instanceInputsSchema = z.object({
  askId: askIdSchema.optional(),
  askIds: z
    .array(askIdSchema, { error: "an ordered list of ask ids" })
    .min(1, "askIds must list at least one ask")
    .optional(),
  /** Rent the best offer matching this query instead of a fixed ask (see create-flow.ts). */
  offerQuery: offerQueryInputSchema.optional(),
  /** A hard cap on the price of any offer rented by query, $/hour. */
  maxDollarsPerHour: z
    .number({ error: "maxDollarsPerHour must be a number ($/hour)" })
    .positive("maxDollarsPerHour must be positive")
    .optional(),
  /** An existing volume linked at create; the instance is rented on the volume's machine. */
  volume: z
    .object(
      {
        volumeId: z.number().int("volumeId is a whole number").positive("volumeId is positive"),
        mountPath: z
          .string({ error: "mountPath is required, e.g. /data" })
          .startsWith("/", "mountPath must be an absolute path, e.g. /data"),
      },
      { error: "volume must be { volumeId, mountPath }" },
    )
    .optional(),
  /**
   * A template to launch from (`Template.hashId`): its values are the defaults and the
   * instance's own inputs override them. Used only at launch: a changed hash is recorded in
   * place (see diff.ts).
   */
  templateHashId: z
    .string({ error: "templateHashId is a template's hash_id (Template.hashId), a string" })
    .regex(
      /^[0-9a-f]{32}$/,
      "templateHashId must be a template's hash_id: 32 lowercase hexadecimal characters",
    )
    .optional(),
  /** Required unless templateHashId is given (the template provides it); see check. */
  image: z
    .string({ error: "the container image, e.g. pytorch/pytorch" })
    .trim()
    .min(1, "image must not be empty")
    .optional(),
  /** Required unless templateHashId is given (the template recommends one); see check. */
  diskGb: z
    .number({ error: "the disk size in GB, at least 8" })
    .min(8, "diskGb must be at least 8 (GB)")
    .optional(),
  onstart: z.string().optional(),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "env names hold letters, digits and _"),
      z.string({ error: "env values are strings" }),
    )
    .optional(),
  /** The service takes labels of at most 1024 characters (PUT /api/v0/instances/{id}/). */
  label: z.string().max(1024, "label must be at most 1024 characters").optional(),
  /** `ssh` when neither the program nor a template says (check sets it without a template). */
  runtype: z
    .enum(["ssh", "jupyter", "args", "vm"], { error: "runtype must be ssh, jupyter, args or vm" })
    .optional(),
  /**
   * The bid, $/hour: an interruptible instance. Within the bounds the service's bid change takes,
   * so that every bid can later change in place (diff.ts).
   */
  price: z
    .number({ error: "price (the bid, $/hour) must be a number" })
    .min(
      bidBounds.minDollarsPerHour,
      `price (the bid, $/hour) must be at least ${bidBounds.minDollarsPerHour}`,
    )
    .max(
      bidBounds.maxDollarsPerHour,
      `price (the bid, $/hour) must be at most ${bidBounds.maxDollarsPerHour}`,
    )
    .optional(),
  createTimeoutSeconds: z.number().positive("createTimeoutSeconds must be positive").default(1200),
  maxAttempts: z
    .number()
    .int("maxAttempts must be a whole number")
    .min(1, "maxAttempts must be at least 1")
    .max(10, "maxAttempts must be at most 10")
    .default(3),
  /** Whether the instance runs or is stopped (kept, its disk billed, its GPUs released). */
  state: z
    .enum(["running", "stopped"], { error: "state must be running or stopped" })
    .default("running"),
  /**
   * `<project>/<stack>/<resource name>`, set by the Instance class (a dynamic provider is not
   * told its URN); carried by every instance rented, so later runs find what earlier ones left.
   */
  owner: z.string().optional(),
  /**
   * The stack's identity (the InstanceSweeper's `stackToken`), set by the Instance class:
   * adoption and cleanup touch only instances carrying it (identity.ts). Absent in stacks
   * written before it existed; never a reason to replace or update an instance.
   */
  stackToken: z.string().optional(),
  /**
   * The resource option `replaceOnChanges`, handed over by the Instance class: the engine applies
   * it only to properties a provider reports as changed, which a dynamic provider cannot, so
   * diff.ts applies it to the changes it would make in place. Absent when not given; never a
   * reason to update or replace on its own.
   */
  replaceOnChanges: z.array(z.string()).optional(),
  pollIntervalSeconds: z
    .number()
    .min(0.05, "pollIntervalSeconds must be at least 0.05")
    .max(60, "pollIntervalSeconds must be at most 60")
    .default(3),
  /** Account SSH keys (SshKey.sshKeyId) attached once the instance runs; in place (ssh-keys.ts). */
  sshKeyIds: z
    .array(
      z.number().int("an SSH key id is a whole number").positive("an SSH key id is positive"),
      {
        error: "a list of SSH key ids (SshKey.sshKeyId)",
      },
    )
    .optional(),
});
export type InstanceInputs = z.infer<typeof instanceInputsSchema>;

/** One try at renting an instance, as reported in outputs and errors. */
export const instanceAttemptSchema = z.object({
  askId: z.number().int(),
  instanceId: z.number().int().optional(),
  lastStatus: z.string().optional(),
  statusMessage: z.string().optional(),
  error: z.string().optional(),
});
export type InstanceAttempt = z.infer<typeof instanceAttemptSchema>;

export const instanceOutputsSchema = instanceInputsSchema.extend({
  /** The service's id of the instance (`new_contract` of the create call). */
  instanceId: z.number().int(),
  actualStatus: z.string().nullable(),
  /** What the service is asked to keep the instance at: running or stopped. */
  intendedStatus: z.string().nullable().optional(),
  sshHost: z.string().nullable(),
  sshPort: z.number().int().nullable(),
  publicIp: z.string().nullable(),
  /** GPU memory in MB (the REST API's unit). */
  gpuRamMb: z.number().int().nullable(),
  statusMessage: z.string().nullable(),
  attempts: z.array(instanceAttemptSchema),
  /**
   * Set (by read) while a higher bid holds the instance's machine: the winning price, $/hour.
   * The instance is stopped and the service still intends it to run; `up` raises the bid above
   * this price when the program declares a higher one, and otherwise fails saying so. Absent
   * otherwise (and in stacks written before it existed).
   */
  outbidByDollarsPerHour: z.number().optional(),
  /**
   * What was rented: the offer as the search answered it (by query), or as the instance shows
   * it. Absent in stacks written before offers were recorded.
   */
  offer: z
    .looseObject({
      askId: z.number().int(),
      gpuName: z.string().nullable(),
      numGpus: z.number().int().nullable(),
      dollarsPerHour: z.number().nullable(),
      machineId: z.number().int().nullable(),
    })
    .optional(),
});
export type InstanceOutputs = z.infer<typeof instanceOutputsSchema>;

/** The asks an input set allows, in order. */
export function asksOf(inputs: Pick<InstanceInputs, "askId" | "askIds">): number[] {
  return inputs.askIds ?? (inputs.askId === undefined ? [] : [inputs.askId]);
}

/**
 * The runtype an instance is launched with: the program's, else `ssh`, except from a template,
 * whose own runtype then applies (undefined: not sent).
 */
export function runtypeOf(
  inputs: Pick<InstanceInputs, "runtype" | "templateHashId">,
): InstanceInputs["runtype"] {
  return inputs.runtype ?? (inputs.templateHashId === undefined ? "ssh" : undefined);
}
