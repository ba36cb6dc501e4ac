import {
  type CreateInstanceRequest,
  GpuCloudError,
  type InstanceOffer,
  type InstanceOfferQuery,
  overlayJoinEnv,
  volumeMountEnv,
} from "../client";
import type { Expiry } from "../shared/expiry-watchdog";
import type { Run } from "../run/run";
import type { Adoptee } from "./adoption";
import { CreateOutcomeUnknownError } from "./errors";
import { creatingLabelOf, markersOf } from "./identity";
import { runtypeOf, type InstanceAttempt, type InstanceInputs } from "./instance-inputs";
import { chooseOffer, NoOfferError } from "./offer-choice";
import { exposePortsEnv } from "./ports";
import { rentInstance } from "./rent";
import { instanceKey, reserveRent } from "./spend";
import type { Reservation } from "../run/budget";

// The steps of one attempt before the boot, each small and named, shared by every create that
// rents instances (an Instance; each node of a NodeGroup): what to ask the service for, where
// the attempt's instance comes from (a leftover to adopt, a listed ask, the best offer of the
// query), and the rent itself. The boot and what it leaves are boot.ts.

/** What a create shares with the one that runs it (an Instance's create, a group's). */
export interface RentScope {
  /** Rented and not yet handed to the engine: destroyed if the engine goes away (create.ts). */
  readonly unrecorded: Set<number>;
  /** Offers this create chose by query, which other creates of the run leave to it. */
  readonly claimed: Set<number>;
  /**
   * Stops the create's waits and its next attempt: the engine's Cancel (run/cancellation.ts),
   * and for a node of a group also a sibling's failure (node-group/create.ts `rentRanks`).
   */
  readonly stop: AbortSignal;
  /**
   * When the instances of the create expire, fixed when it began (lifetime.ts): every attempt's
   * instance, and every node of a group, gets the same deadline. Undefined: no maxLifetime.
   */
  readonly expiry?: Expiry | undefined;
  /**
   * A group's hold on the stack's cap (run/budget.ts), reserved for all its nodes before the
   * first rent: each node's rent spends it first. Undefined for an Instance, or without a cap.
   */
  readonly budgetHold?: Reservation | undefined;
  /**
   * A node of a group whose rank joins the overlay after rank 0: resolves once rank 0's rent
   * is answered (or `stop` fires), so that each rent of this create is sent after it, and the
   * first member's address is rank 0's (node-group/ranks.ts). Undefined: rents go at once.
   */
  readonly beforeRent?: (() => Promise<void>) | undefined;
  /**
   * Told each instance this create rents, once the service answered its rent and before its
   * boot is awaited (a group's rank 0 lets the others rent; the others are handed over). A
   * failure fails the create, its instance still unrecorded for the caller to destroy.
   */
  readonly afterRent?: ((instanceId: number) => void | Promise<void>) | undefined;
  /**
   * The instance is a group create's witness (group-witness.ts): it proves the other nodes
   * leftovers while it carries the being-created label, so this create never destroys it nor
   * rents another in its place. A boot that does not end running fails the create, leaving
   * the instance unrecorded: the group destroys it after every other node.
   */
  readonly witness?: boolean | undefined;
}

/** What one create knows and has done so far, across its attempts. */
export interface InstanceCreate extends RentScope {
  /** The run the create belongs to: its client, its cancellation, what its creates share. */
  readonly run: Run;
  readonly inputs: InstanceInputs;
  /** The resource's name, which every message leads with. */
  readonly name: string;
  readonly progress: (message: string) => void;
  readonly request: CreateInstanceRequest;
  readonly deadlineMs: number;
  /** The asks the program lists, in order (one per attempt, cycling). */
  readonly asks: readonly number[];
  /** By query: the query each attempt searches afresh (pinned to where the instance must be). */
  readonly query: InstanceOfferQuery | string | undefined;
  /** Where the query is pinned to, in words, for its "no offer" errors (offer-choice.ts). */
  readonly pin?: string | undefined;
  /** The subnet of the overlay the instance joins, for its `localIp`. */
  readonly overlaySubnet?: string | undefined;
  readonly attempts: InstanceAttempt[];
  /** Asks this create has tried: a query never leads to one again. */
  readonly tried: Set<number>;
  /** Asks the service said do not exist: not asked for again in this create. */
  readonly missingAsks: Set<number>;
  /** A leftover of an interrupted run, taken as the first attempt; undefined once one rents. */
  adoptee: Adoptee | undefined;
  /** Why the create stops when no attempt succeeds. */
  reason: string;
}

/**
 * The create request for the service: the program's inputs, marked as being created, with the
 * onstart command to send (lifetime.ts `onstartToSend`: encoded, after the watchdog).
 */
export function createRequestOf(
  inputs: InstanceInputs,
  onstart: string | undefined,
): CreateInstanceRequest {
  // The overlay is joined and the network volume mounted by env entries, as the official
  // client sends them (`-n NAME`, `-v V.<id>:<path>`): the service has no other field for an
  // overlay.
  const directives = {
    ...(inputs.overlay === undefined ? {} : overlayJoinEnv(inputs.overlay)),
    ...(inputs.networkVolume === undefined
      ? {}
      : volumeMountEnv(inputs.networkVolume.volumeId, inputs.networkVolume.mountPath)),
    ...exposePortsEnv(inputs.exposePorts),
  };
  const env = Object.keys(directives).length === 0 ? inputs.env : { ...inputs.env, ...directives };
  return {
    image: inputs.image,
    disk: inputs.diskGb,
    // The template's values are defaults; every field given here overrides its own.
    template_hash_id: inputs.templateHashId,
    onstart,
    ...(inputs.args === undefined ? {} : { args: inputs.args }),
    env,
    // Marked as being created by this stack until create hands it over (identity.ts).
    label: inputs.stackToken === undefined ? inputs.label : creatingLabelOf(inputs.stackToken),
    runtype: runtypeOf(inputs),
    price: inputs.price,
    ...(inputs.volume === undefined
      ? {}
      : {
          volume_info: {
            create_new: false,
            volume_id: inputs.volume.volumeId,
            mount_path: inputs.volume.mountPath,
          },
        }),
  };
}

export function describeAttempts(attempts: readonly InstanceAttempt[]): string {
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

/** Where an attempt's instance comes from: a leftover to adopt, or an ask to rent. */
export type AttemptSource =
  { readonly adopt: Adoptee } | { readonly askId: number; readonly offer?: InstanceOffer };

export const askOf = (source: AttemptSource): number =>
  "adopt" in source ? source.adopt.askId : source.askId;

/**
 * The attempt's instance: the leftover to adopt, the next listed ask that exists, or the best
 * offer of the query not tried yet. Undefined (with the create's reason set) when no attempt
 * is left to make: the deadline passed, or the query leads to nothing more. Throws when the
 * engine has cancelled the operation (no search, no rent).
 */
export async function sourceOfAttempt(
  create: InstanceCreate,
  number: number,
): Promise<AttemptSource | undefined> {
  // No new attempt (no search, no rent) once the engine has cancelled the operation.
  if (create.stop.aborted) throw cancelledBefore(create, number);
  if (number > 1 && Date.now() >= create.deadlineMs) {
    create.reason = `the ${create.inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
    return undefined;
  }
  const { adoptee, query } = create;
  const live = create.asks.filter((ask) => !create.missingAsks.has(ask));
  let source: AttemptSource | undefined =
    adoptee === undefined ? { askId: live[(number - 1) % live.length] ?? 0 } : { adopt: adoptee };
  if (adoptee === undefined && query !== undefined) {
    source = await chooseByQuery(create, query, number);
    if (source === undefined) return undefined;
  }
  // Cancelled during the search: nothing is rented.
  if (create.stop.aborted && adoptee === undefined) throw cancelledBefore(create, number);
  create.tried.add(askOf(source));
  return source;
}

/** The failure of a create the engine cancelled before its attempt `number`. */
function cancelledBefore(create: InstanceCreate, number: number): Error {
  const { adoptee } = create;
  return new Error(
    `${create.name}: cancelled before attempt ${number}; nothing this create rented is left ` +
      `running.` +
      (adoptee === undefined
        ? ""
        : ` Instance ${adoptee.instanceId}, left by an interrupted run, was not touched: ` +
          `the next \`pulumi up\` adopts or destroys it.`) +
      (create.attempts.length > 0 ? `\n${describeAttempts(create.attempts)}` : ""),
  );
}

/**
 * The best offer of the query not tried yet in this create, claimed for it; undefined (with the
 * create's reason set) when the query leads to nothing more.
 */
async function chooseByQuery(
  create: InstanceCreate,
  query: InstanceOfferQuery | string,
  number: number,
): Promise<AttemptSource | undefined> {
  try {
    const offer = await chooseOffer(create.run, {
      query,
      pin: create.pin,
      maxDollarsPerHour: create.inputs.maxDollarsPerHour,
      tried: create.tried,
      claimed: create.claimed,
      progress: create.progress,
      deadlineMs: create.deadlineMs,
      stop: create.stop,
    });
    create.progress(
      `attempt ${number}: renting ask ${offer.askId} (${offer.numGpus}x ${offer.gpuName}, ` +
        `$${offer.dollarsPerHour}/h, machine ${offer.machineId ?? "?"})`,
    );
    return { askId: offer.askId, offer };
  } catch (error) {
    if (!(error instanceof NoOfferError)) throw error;
    create.reason = error.message;
    return undefined;
  }
}

/**
 * Rents the attempt's ask (or takes the leftover it adopts). Returns the instance's id, or
 * undefined when the ask is gone and another may be tried (`missingAsks` then holds it); throws
 * when nothing a retry could fix (a refused key, invalid arguments) or when the outcome of the
 * create is unknown (never sent twice).
 */
export async function rentForAttempt(
  create: InstanceCreate,
  source: AttemptSource,
): Promise<number | undefined> {
  const { run } = create;
  const askId = askOf(source);
  if (create.beforeRent !== undefined && !("adopt" in source)) {
    await create.beforeRent();
    // Stopped while it waited (a sibling failed, or the engine cancelled): nothing is sent.
    if (create.stop.aborted) {
      throw new Error(
        `${create.name}: stopped before its rent was sent; nothing this create rented is left ` +
          `running.`,
      );
    }
  }
  // The stack's cap, before anything is sent: a refusal (OverBudgetError) ends the create
  // here, with nothing rented; it is no dead end to retry with another offer.
  const held =
    "adopt" in source
      ? undefined
      : await reserveRent(run, {
          name: create.name,
          askId,
          inputs: create.inputs,
          offerDollarsPerHour: source.offer?.dollarsPerHour,
          from: create.budgetHold,
          stop: create.stop,
        });
  if (held === "unpriced") {
    unpricedAsk(create, askId);
    return undefined;
  }
  let instanceId: number;
  try {
    instanceId =
      "adopt" in source
        ? source.adopt.instanceId
        : await run.renting.renting(() =>
            rentInstance(run, {
              askId,
              request: create.request,
              markers: (token) => markersOf(create.inputs, token),
              deadlineMs: create.deadlineMs,
              stop: create.stop,
            }),
          );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    create.attempts.push({ askId, error: message });
    // A rent that may have reached the service keeps its hold: its instance may bill.
    if (!(error instanceof CreateOutcomeUnknownError)) held?.release();
    if (error instanceof CreateOutcomeUnknownError) {
      throw new Error(
        `${create.name}: an instance create from ask ${askId} may have reached the service, but its reply ` +
          `was lost.\n${describeAttempts(create.attempts)}`,
      );
    }
    // An ask that is gone (rented by someone else since the search) is worth trying the next
    // one, while there is one; anything else no retry can fix: it stops here and leads the error.
    if (error instanceof GpuCloudError && error.code === "no_such_ask") {
      create.missingAsks.add(askId);
      const canTryAnother =
        create.query !== undefined || create.asks.some((ask) => !create.missingAsks.has(ask));
      if (canTryAnother) return undefined;
    }
    throw new Error(
      `${create.name}: ${message}; no instance was created and retrying cannot help.\n` +
        describeAttempts(create.attempts),
    );
  }
  held?.landed(instanceKey(instanceId));
  create.unrecorded.add(instanceId);
  run.renting.rememberRented(instanceId);
  create.adoptee = undefined;
  await create.afterRent?.(instanceId);
  return instanceId;
}

/**
 * An ask whose price no search answers (rented meanwhile): its rent is not sent, since what it
 * would cost cannot be held against the stack's cap. The next ask is tried while there is one.
 */
function unpricedAsk(create: InstanceCreate, askId: number): void {
  const message = `the offer search no longer answers ask ${askId}, so its price cannot be held against gpucloud:maxDollarsPerHour`;
  create.attempts.push({ askId, error: message });
  create.missingAsks.add(askId);
  const canTryAnother =
    create.query !== undefined || create.asks.some((ask) => !create.missingAsks.has(ask));
  if (canTryAnother) return;
  throw new Error(
    `${create.name}: ${message}; nothing was rented.\n${describeAttempts(create.attempts)}`,
  );
}
