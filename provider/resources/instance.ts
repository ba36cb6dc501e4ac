import { randomUUID } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  type CreateInstanceRequest,
  deadEndStatuses,
  environmentOf,
  GpuCloudError,
  type GpuCloudClient,
  type Instance as InstanceWire,
} from "../client";
import { encodeOnstart, onstartLimitChars } from "../onstart";
import { pollUntil } from "../polling";
import { providerClient, reportProgress } from "../provider-runtime";
import { type DynamicProvider, providerShim } from "../shim";
import { checkInputs } from "../validation";

// ---- Inputs -------------------------------------------------------------------------------

const askIdSchema = z
  .number({ error: "an ask id is a number: the id of an instance offer" })
  .int("an ask id is a whole number")
  .positive("an ask id is positive");

export const instanceInputsSchema = z.object({
  askId: askIdSchema.optional(),
  askIds: z
    .array(askIdSchema, { error: "askIds must be a list of ask ids" })
    .min(1, "askIds must list at least one ask")
    .optional(),
  image: z.string({ error: "image is required" }).trim().min(1, "image must not be empty"),
  diskGb: z
    .number({ error: "diskGb is required: the disk size in GB" })
    .min(8, "diskGb must be at least 8 (GB)"),
  onstart: z.string().optional(),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "env names hold letters, digits and _"),
      z.string({ error: "env values must be strings" }),
    )
    .optional(),
  label: z.string().optional(),
  runtype: z
    .enum(["ssh", "jupyter", "args", "vm"], { error: "runtype must be ssh, jupyter, args or vm" })
    .default("ssh"),
  price: z.number().nonnegative("price (the bid, $/hour) must not be negative").optional(),
  createTimeoutSeconds: z.number().positive("createTimeoutSeconds must be positive").default(1200),
  maxAttempts: z
    .number()
    .int("maxAttempts must be a whole number")
    .min(1, "maxAttempts must be at least 1")
    .max(10, "maxAttempts must be at most 10")
    .default(3),
  pollIntervalSeconds: z
    .number()
    .min(0.05, "pollIntervalSeconds must be at least 0.05")
    .max(60, "pollIntervalSeconds must be at most 60")
    .default(3),
});
export type InstanceInputs = z.infer<typeof instanceInputsSchema>;

/** One try at renting an instance, as reported in outputs and errors. */
export const instanceAttemptSchema = z.object({
  askId: z.number(),
  instanceId: z.number().optional(),
  lastStatus: z.string().optional(),
  statusMessage: z.string().optional(),
  error: z.string().optional(),
});
export type InstanceAttempt = z.infer<typeof instanceAttemptSchema>;

export const instanceOutputsSchema = instanceInputsSchema.extend({
  /** The service's id of the instance (`new_contract` of the create call). */
  instanceId: z.number().int(),
  actualStatus: z.string().nullable(),
  sshHost: z.string().nullable(),
  sshPort: z.number().nullable(),
  publicIp: z.string().nullable(),
  /** GPU memory in MB (the REST API's unit). */
  gpuRamMb: z.number().nullable(),
  statusMessage: z.string().nullable(),
  attempts: z.array(instanceAttemptSchema),
});
export type InstanceOutputs = z.infer<typeof instanceOutputsSchema>;

/** Marks the instances this provider creates, to find one whose create reply was lost. */
const createTokenVariable = "PULUMI_GPUCLOUD_CREATE_TOKEN";

// ---- Diff rules ---------------------------------------------------------------------------

const replacingFields = ["image", "diskGb", "onstart", "env", "runtype", "price"] as const;
const inPlaceFields = [
  "label",
  "createTimeoutSeconds",
  "maxAttempts",
  "pollIntervalSeconds",
] as const;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The asks an input set allows, in order. */
export function asksOf(inputs: Pick<InstanceInputs, "askId" | "askIds">): number[] {
  return inputs.askIds ?? (inputs.askId === undefined ? [] : [inputs.askId]);
}

/** True when the recorded instance never reached running or has since reached a dead end. */
function isBroken(olds: InstanceOutputs): boolean {
  const lastAttempt = olds.attempts.at(-1);
  return (
    lastAttempt?.lastStatus !== undefined ||
    (deadEndStatuses as readonly string[]).includes(olds.actualStatus ?? "")
  );
}

/**
 * The service can only relabel a running instance: any other change of what runs replaces it.
 * The ask list replaces only when it no longer holds the ask the instance was rented from; the
 * resource's own timing settings change nothing on the service. An instance recorded as not
 * running (kept after a failed create, or found at a dead end by refresh) is replaced. A
 * replacement on the same ask deletes first: the ask's machine cannot hold both.
 */
export function diffInstance(
  olds: InstanceOutputs,
  news: InstanceInputs,
): pulumi.dynamic.DiffResult {
  const replaces: string[] = replacingFields.filter((field) => !same(olds[field], news[field]));
  const rentedFrom = olds.attempts.at(-1)?.askId;
  const newAsks = asksOf(news);
  const asksChanged = !same(asksOf(olds), newAsks);
  if (asksChanged && (rentedFrom === undefined || !newAsks.includes(rentedFrom))) {
    replaces.push(news.askIds === undefined ? "askId" : "askIds");
  }
  if (isBroken(olds)) replaces.push("actualStatus");
  const changes =
    replaces.length > 0 ||
    asksChanged ||
    inPlaceFields.some((field) => !same(olds[field], news[field]));
  return {
    changes,
    replaces,
    deleteBeforeReplace:
      replaces.length > 0 && rentedFrom !== undefined && newAsks.includes(rentedFrom),
  };
}

// ---- CRUD ---------------------------------------------------------------------------------

function connectionOutputs(instance: InstanceWire | undefined) {
  return {
    actualStatus: instance?.actual_status ?? null,
    sshHost: instance?.ssh_host ?? null,
    sshPort: instance?.ssh_port ?? null,
    publicIp: instance?.public_ipaddr ?? null,
    gpuRamMb: instance?.gpu_ram ?? null,
    statusMessage: instance?.status_msg ?? null,
  };
}

function inputsOf(props: InstanceOutputs): InstanceInputs {
  return Object.fromEntries(
    Object.keys(instanceInputsSchema.shape)
      .filter((field) => field in props)
      .map((field) => [field, props[field as keyof InstanceInputs]]),
  ) as InstanceInputs;
}

function describeAttempts(attempts: readonly InstanceAttempt[]): string {
  return attempts
    .map((attempt, index) => {
      const what =
        attempt.instanceId === undefined
          ? `ask ${attempt.askId}: ${attempt.error ?? "not created"}`
          : `instance ${attempt.instanceId} from ask ${attempt.askId}: last status ` +
            (attempt.lastStatus ?? "provisioning") +
            (attempt.statusMessage ? ` (${attempt.statusMessage})` : "") +
            (attempt.error ? `; ${attempt.error}` : "");
      return `  attempt ${index + 1}: ${what}`;
    })
    .join("\n");
}

/** A create that leaves an instance behind: Pulumi records it (with init errors) by this id. */
class InstanceLeftBehindError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: InstanceOutputs,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** A create whose reply was lost, and whose instance could not be found by its token. */
class CreateOutcomeUnknownError extends Error {}

/**
 * Rents one instance. The create call is never retried; when its reply is lost after it may
 * have reached the service, the instance is looked for by this create's token instead, until
 * the create's deadline.
 */
async function rentInstance(
  client: GpuCloudClient,
  askId: number,
  request: CreateInstanceRequest,
  deadlineMs: number,
): Promise<number> {
  const token = randomUUID();
  try {
    return await client.instances.create(askId, {
      ...request,
      env: { ...request.env, [createTokenVariable]: token },
    });
  } catch (error) {
    if (!(error instanceof GpuCloudError && error.mayHaveCreated)) throw error;
    reportProgress(`the create reply was lost; looking for the instance by its create token`);
    const found = await pollUntil(
      async () =>
        // A failed look is only a failed look: keep looking until the deadline.
        (await client.instances.list().catch(() => [])).find(
          (instance) => environmentOf(instance)[createTokenVariable] === token,
        )?.id,
      {
        initialIntervalMs: 1_000,
        maxIntervalMs: 10_000,
        deadlineMs: Math.max(deadlineMs, Date.now() + 15_000),
      },
    );
    if (found !== undefined) return found;
    throw new CreateOutcomeUnknownError(
      `${error.message}. No instance with ${createTokenVariable}=${token} was found before the ` +
        `deadline: one may exist in your account; look for that variable and destroy it.`,
    );
  }
}

type BootOutcome =
  | { kind: "running"; instance: InstanceWire }
  | { kind: "dead-end"; instance: InstanceWire }
  | { kind: "gone" }
  | { kind: "deadline"; instance: InstanceWire | undefined };

/** Polls until the instance runs, reaches a dead end, disappears, or the deadline passes. */
async function waitUntilRunning(
  client: GpuCloudClient,
  instanceId: number,
  deadlineMs: number,
  pollIntervalSeconds: number,
  onStatus: (instance: InstanceWire) => void,
): Promise<BootOutcome> {
  let last: InstanceWire | undefined;
  const outcome = await pollUntil<BootOutcome>(
    async () => {
      const instance = await client.instances.show(instanceId);
      if (!instance) return { kind: "gone" };
      if (instance.actual_status !== last?.actual_status) onStatus(instance);
      last = instance;
      const status = instance.actual_status ?? "";
      if (status === "running") return { kind: "running", instance };
      if ((deadEndStatuses as readonly string[]).includes(status)) {
        return { kind: "dead-end", instance };
      }
      return undefined;
    },
    {
      initialIntervalMs: pollIntervalSeconds * 1000,
      maxIntervalMs: Math.max(30_000, pollIntervalSeconds * 1000),
      deadlineMs,
    },
  );
  return outcome ?? { kind: "deadline", instance: last };
}

/** Destroys the instance and waits, bounded, until the service no longer shows it. */
async function destroyAndConfirm(
  client: GpuCloudClient,
  instanceId: number,
  pollIntervalSeconds: number,
  timeoutMs = 120_000,
): Promise<boolean> {
  await client.instances.destroy(instanceId);
  const gone = await pollUntil(
    async () => ((await client.instances.show(instanceId)) === undefined ? true : undefined),
    {
      initialIntervalMs: pollIntervalSeconds * 1000,
      maxIntervalMs: Math.max(10_000, pollIntervalSeconds * 1000),
      deadlineMs: Date.now() + timeoutMs,
    },
  );
  return gone === true;
}

export const provider: DynamicProvider<InstanceInputs, InstanceOutputs> = {
  async check(olds, news) {
    const client = providerClient();
    const { inputs, failures } = checkInputs(instanceInputsSchema, news);
    if (inputs.askId !== undefined && inputs.askIds !== undefined) {
      failures.push({ property: "askId", reason: "askId: give askId or askIds, not both" });
    }
    if (news["askId"] === undefined && news["askIds"] === undefined) {
      failures.push({
        property: "askId",
        reason: "askId: required (or askIds, an ordered list of asks to try)",
      });
    }
    if (typeof inputs.onstart === "string") {
      const encoded = encodeOnstart(inputs.onstart);
      if (!encoded.ok) {
        failures.push({
          property: "onstart",
          reason:
            `onstart: ${encoded.originalChars} characters, ${encoded.encodedChars} even when ` +
            `gzipped and base64-encoded; the service takes at most ${onstartLimitChars}`,
        });
      }
    }
    // A VM cannot get an SSH key after it is created: refuse to rent one without a key. Only
    // when one is about to be rented: a running VM must stay manageable if the key goes.
    const renting =
      Object.keys(olds).length === 0 ||
      replacingFields.some((field) => !same(olds[field], inputs[field]));
    if (failures.length === 0 && inputs.runtype === "vm" && renting) {
      const user = await client.users.current();
      if (!user.hasSshKey) {
        failures.push({
          property: "runtype",
          reason:
            "runtype: a VM needs an SSH key registered on the account before it is created, " +
            "and cannot recover without one; register a key first, or use a container runtype",
        });
      }
    }
    return { inputs, failures };
  },

  async diff(_id, olds, news) {
    return diffInstance(olds, news);
  },

  async create(inputs) {
    const client = providerClient();
    const asks = asksOf(inputs);
    const onstart = inputs.onstart === undefined ? undefined : encodeOnstart(inputs.onstart);
    const request: CreateInstanceRequest = {
      image: inputs.image,
      disk: inputs.diskGb,
      onstart: onstart?.ok ? onstart.command : undefined,
      env: inputs.env,
      label: inputs.label,
      runtype: inputs.runtype,
      price: inputs.price,
    };
    const deadlineMs = Date.now() + inputs.createTimeoutSeconds * 1000;
    const attempts: InstanceAttempt[] = [];
    let reason = `every one of ${inputs.maxAttempts} attempts ended without a running instance`;

    for (let number = 1; number <= inputs.maxAttempts; number++) {
      if (number > 1 && Date.now() >= deadlineMs) {
        reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
        break;
      }
      const askId = asks[(number - 1) % asks.length] ?? 0;
      let instanceId: number;
      try {
        instanceId = await rentInstance(client, askId, request, deadlineMs);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        attempts.push({ askId, error: message });
        if (error instanceof CreateOutcomeUnknownError) {
          throw new Error(
            `an instance create from ask ${askId} may have reached the service, but its reply ` +
              `was lost.\n${describeAttempts(attempts)}`,
          );
        }
        // An ask that is gone is worth trying the next one; anything else is not.
        if (error instanceof GpuCloudError && error.code === "no_such_ask") continue;
        reason = "an instance could not be created";
        break;
      }
      const attempt: InstanceAttempt = { askId, instanceId };
      attempts.push(attempt);
      reportProgress(
        `attempt ${number} of ${inputs.maxAttempts}: instance ${instanceId} from ask ${askId}, waiting for running`,
      );
      let outcome: BootOutcome;
      try {
        outcome = await waitUntilRunning(
          client,
          instanceId,
          deadlineMs,
          inputs.pollIntervalSeconds,
          (instance) => {
            reportProgress(
              `instance ${instanceId}: ${instance.actual_status ?? "provisioning"}` +
                (instance.status_msg ? ` (${instance.status_msg})` : ""),
            );
          },
        );
      } catch (error) {
        attempt.error = error instanceof Error ? error.message : String(error);
        outcome = { kind: "deadline", instance: undefined };
        reason = "polling the instance failed";
      }
      const outs: InstanceOutputs = {
        ...inputs,
        instanceId,
        ...connectionOutputs(outcome.kind === "gone" ? undefined : outcome.instance),
        attempts,
      };
      if (outcome.kind === "running") {
        reportProgress(`instance ${instanceId} is running (attempt ${number})`);
        return { id: String(instanceId), outs };
      }
      attempt.lastStatus = outcome.kind === "gone" ? "gone" : (outs.actualStatus ?? "provisioning");
      if (outs.statusMessage) attempt.statusMessage = outs.statusMessage;
      if (outcome.kind !== "gone") {
        reportProgress(
          `instance ${instanceId} will not run (${attempt.lastStatus}); destroying it`,
        );
        let destroyed = false;
        try {
          destroyed = await destroyAndConfirm(client, instanceId, inputs.pollIntervalSeconds);
        } catch (error) {
          attempt.error = error instanceof Error ? error.message : String(error);
        }
        if (!destroyed) {
          const message =
            `instance ${instanceId} did not reach running and could not be destroyed; it is ` +
            `kept in the stack so that a later \`pulumi up\` or \`pulumi destroy\` deals with it.\n` +
            describeAttempts(attempts);
          throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
        }
      }
      if (outcome.kind === "deadline") {
        if (reason.startsWith("every")) {
          reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
        }
        break;
      }
    }
    throw new Error(
      `no running instance: ${reason}; nothing is left running.\n${describeAttempts(attempts)}`,
    );
  },

  async read(id, props) {
    if (!props) return {};
    const instance = await providerClient().instances.show(props.instanceId);
    if (!instance) return {};
    const label = instance.label ?? undefined;
    const outs: InstanceOutputs = { ...props, ...connectionOutputs(instance) };
    if (label === undefined) delete outs.label;
    else outs.label = label;
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  async update(_id, olds, news) {
    if ((news.label ?? "") !== (olds.label ?? "")) {
      await providerClient().instances.relabel(olds.instanceId, news.label ?? "");
    }
    const outs: InstanceOutputs = { ...olds, ...news };
    // A label removed from the program is removed from the outputs too.
    if (news.label === undefined) delete outs.label;
    return { outs };
  },

  async delete(_id, props) {
    const gone = await destroyAndConfirm(
      providerClient(),
      props.instanceId,
      props.pollIntervalSeconds,
      600_000,
    );
    if (!gone) {
      throw new Error(
        `instance ${props.instanceId} still exists 10 minutes after it was destroyed`,
      );
    }
  },
};

// ---- The resource -------------------------------------------------------------------------

export interface InstanceArgs {
  /** The instance ask (offer) to rent. Give this or `askIds`. */
  askId?: pulumi.Input<number>;
  /** Asks to try in order, one per attempt (cycling when attempts outnumber asks). */
  askIds?: pulumi.Input<pulumi.Input<number>[]>;
  /** The container or VM image. */
  image: pulumi.Input<string>;
  /** Disk size in GB, at least 8. */
  diskGb: pulumi.Input<number>;
  /**
   * A script run at start. Over 4048 characters it is gzipped and base64-encoded into a short
   * bootstrap command; one that does not fit even then fails at preview.
   */
  onstart?: pulumi.Input<string>;
  /** Environment variables of the instance. */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** A label; the only field that changes in place. */
  label?: pulumi.Input<string>;
  /** `ssh` (default), `jupyter`, `args` or `vm`. A VM needs an SSH key on the account. */
  runtype?: pulumi.Input<"ssh" | "jupyter" | "args" | "vm">;
  /** A bid in $/hour (interruptible); on-demand when absent. */
  price?: pulumi.Input<number>;
  /** How long create may take in all, attempts included (default 1200 s). */
  createTimeoutSeconds?: pulumi.Input<number>;
  /** Instances to try before giving up (default 3). */
  maxAttempts?: pulumi.Input<number>;
  /** The first wait between status polls (default 3 s); later waits double up to 30 s. */
  pollIntervalSeconds?: pulumi.Input<number>;
}

/**
 * A GPU instance rented from an ask. Create waits until it is `running`; an instance that
 * reaches a dead end (`exited`, `unknown`, `offline`) is destroyed and another is tried, up to
 * `maxAttempts`. A failed create leaves nothing running.
 */
export class Instance extends pulumi.dynamic.Resource {
  declare readonly instanceId: pulumi.Output<number>;
  declare readonly actualStatus: pulumi.Output<string | null>;
  declare readonly sshHost: pulumi.Output<string | null>;
  declare readonly sshPort: pulumi.Output<number | null>;
  declare readonly publicIp: pulumi.Output<string | null>;
  /** GPU memory in MB. */
  declare readonly gpuRamMb: pulumi.Output<number | null>;
  declare readonly statusMessage: pulumi.Output<string | null>;
  /** Each attempt create made: ask, instance id, last status and status message. */
  declare readonly attempts: pulumi.Output<InstanceAttempt[]>;
  declare readonly label: pulumi.Output<string | undefined>;

  constructor(name: string, args: InstanceArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim("pulumi-gpucloud/provider/resources/instance"),
      name,
      {
        ...args,
        label: args.label,
        instanceId: undefined,
        actualStatus: undefined,
        sshHost: undefined,
        sshPort: undefined,
        publicIp: undefined,
        gpuRamMb: undefined,
        statusMessage: undefined,
        attempts: undefined,
      },
      opts,
      "gpucloud",
      "Instance",
    );
  }
}
