import type { InstanceKeys } from "../accounts/instance-keys";
import type { KeyRing } from "../accounts/key-ring";
import type { FaultInjector } from "../control/faults";
import type { RateLimiter } from "../control/rate-limits";
import type { RequestLog } from "../control/request-log";
import type { InstanceLogs } from "../instances/instance-logs";
import type { PortServer } from "../instances/port-server";
import type { StandInGpus } from "../instances/stand-in-gpus";
import type { EmulatorSettings } from "../options";
import type { ServerlessEngine } from "../serverless/worker-engine";
import type { Clock } from "./clock";
import type { Store } from "./store";

/** What route modules share: the account's state and the emulator's test machinery. */
export interface EmulatorContext {
  readonly store: Store;
  /** The account's time: lifecycles and bills (shared/clock.ts). */
  readonly clock: Clock;
  readonly keys: KeyRing;
  /** Each instance's own key (never an account key, never in the state). */
  readonly instanceKeys: InstanceKeys;
  /** What instances' onstart printed, for the logs endpoint. */
  readonly logs: InstanceLogs;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly rateLimits: RateLimiter;
  readonly settings: EmulatorSettings;
  readonly serverless: ServerlessEngine;
  /** With `servePorts`: what answers on instances' mapped ports. */
  readonly ports: PortServer | undefined;
  /** With `runOnstart`: the `nvidia-smi` each onstart finds, and the utilization it reports. */
  readonly gpus: StandInGpus | undefined;
}
