import type { InstanceAsk } from "../market/asks";
import type { EmulatorSettings } from "../options";
import type { State } from "../shared/state";
import type { Instance } from "./instance-state";
import { bootTimingOf } from "./lifecycle";

/** What a rent decides; the rest of a new instance is the emulator's. */
export type InstanceSpec = Pick<
  Instance,
  | "image"
  | "diskGb"
  | "onstart"
  | "args"
  | "env"
  | "label"
  | "runtype"
  | "bidDollarsPerHour"
  | "imageLogin"
  | "volume"
  | "mounts"
  | "overlay"
  | "template"
  | "workerGroupId"
>;

/** Adds an instance rented from `ask` to the state: the API's rent and the serverless engine's. */
export function addInstance(
  state: State,
  settings: EmulatorSettings,
  ask: InstanceAsk,
  spec: InstanceSpec,
  nowMs: number,
): Instance {
  const id = state.nextIds.instance++;
  const timing = bootTimingOf(settings, id);
  const queued = state.bootQueue.shift();
  const created: Instance = {
    id,
    offer: structuredClone(ask),
    ...spec,
    createdAtMs: nowMs,
    polls: 0,
    // A queued outcome keeps its own timing; polls default to the emulator's.
    boot:
      queued === undefined
        ? { status: "running", ...timing }
        : { ...queued, afterPolls: queued.afterPolls ?? settings.bootPolls },
    intendedStatus: "running",
    restartedAtMs: null,
    containerAction: null,
    containerCreatedAtMs: null,
    releaseAtMs: null,
    outbidDollarsPerHour: null,
    prepay: null,
  };
  state.instances.push(created);
  return created;
}
