import type { KeyRing } from "./auth";
import type { FaultInjector } from "./faults";
import type { EmulatorSettings } from "./options";
import type { RateLimiter } from "./rateLimits";
import type { RequestLog } from "./requestLog";
import type { ServerlessEngine } from "./serverless";
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
