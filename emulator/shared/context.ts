import type { KeyRing } from "../accounts/auth";
import type { FaultInjector } from "../control/faults";
import type { EmulatorSettings } from "../options";
import type { RateLimiter } from "../control/rate-limits";
import type { RequestLog } from "../control/request-log";
import type { ServerlessEngine } from "../serverless/worker-engine";
import type { Store } from "./state";

/** What route modules share: the account's state and the emulator's test machinery. */
export interface EmulatorContext {
  readonly store: Store;
  readonly keys: KeyRing;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  readonly rateLimits: RateLimiter;
  readonly settings: EmulatorSettings;
  readonly serverless: ServerlessEngine;
}
