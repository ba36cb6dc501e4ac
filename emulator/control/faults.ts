import { z } from "zod";
import { seededRandom } from "../shared/random";

const FaultRuleSchema = z.object({
  rate: z.number().min(0).max(1).optional(),
  /** The next N matching requests get the fault, before rate is consulted. */
  next: z.int().nonnegative().optional(),
  methods: z.array(z.string().min(1)).optional(),
  /** Path prefixes the rule applies to, e.g. "/api/v0/asks/" (all paths when absent). */
  paths: z.array(z.string().min(1)).optional(),
});
type FaultRule = z.infer<typeof FaultRuleSchema>;

export const FaultsSchema = z.object({
  latencyMs: z.int().nonnegative().max(60_000).optional(),
  tooManyRequests: FaultRuleSchema.optional(),
  serverErrors: FaultRuleSchema.extend({
    status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
  }).optional(),
  drops: FaultRuleSchema.extend({ afterHandling: z.boolean().optional() }).optional(),
  seed: z.int().optional(),
  /** Offer searches (bundles and volumes) ignore this field's filter, as the service has been seen to. */
  searchIgnoresFilter: z.object({ field: z.string().min(1) }).optional(),
  /**
   * After each of the next N instance offer searches, the first offer it answered is rented by
   * someone else: it leaves the market, as if taken between a search and a rent.
   */
  offerTakenAfterSearch: z.object({ next: z.int().nonnegative() }).optional(),
  /**
   * The next N worker instances a worker group or endpoint deletion releases are not destroyed:
   * they stay running on the account and the deletion reports them in `failed_workers`.
   */
  workerReleaseFails: z.object({ next: z.int().nonnegative() }).optional(),
  /**
   * The next N instances that join an overlay (by a create's `-n`, or a join) skip its lowest
   * free address and get the one after: the service's guide shows an overlay's first instance
   * on the subnet's first host, and promises no order beyond that example.
   */
  overlayAddressSkipped: z.object({ next: z.int().nonnegative() }).optional(),
});
export type Faults = z.infer<typeof FaultsSchema>;

export type Fault =
  | { kind: "too_many_requests"; plainText: boolean }
  | { kind: "server_error"; status: number }
  | { kind: "drop" }
  | { kind: "drop_after_handling" };

export class FaultInjector {
  private config: Faults = {};
  private random: () => number;
  private throttled = 0;

  constructor(private readonly defaultSeed: number) {
    this.random = seededRandom(defaultSeed);
  }

  /** Includes what is left of each `next` count. */
  get current(): Faults {
    return this.config;
  }

  get latencyMs(): number {
    return this.config.latencyMs ?? 0;
  }

  /** Reseeds on every change, so a test's faults do not depend on the traffic before it. */
  set(config: Faults): void {
    this.config = structuredClone(config);
    this.random = seededRandom(config.seed ?? this.defaultSeed);
    this.throttled = 0;
  }

  clear(): void {
    this.set({});
  }

  /** The filter field searches ignore, if any. */
  get ignoredSearchField(): string | undefined {
    return this.config.searchIgnoresFilter?.field;
  }

  /** Whether this search's first offer is taken by someone else (counts one down). */
  takeAfterSearch(): boolean {
    const rule = this.config.offerTakenAfterSearch;
    if (rule === undefined || rule.next <= 0) return false;
    rule.next -= 1;
    return true;
  }

  /** How many free addresses this overlay join skips: 1 while the fault lasts (counts one down). */
  takeOverlayAddressSkip(): number {
    const rule = this.config.overlayAddressSkipped;
    if (rule === undefined || rule.next <= 0) return 0;
    rule.next -= 1;
    return 1;
  }

  /** Whether this worker's release fails (counts one down). */
  takeWorkerReleaseFailure(): boolean {
    const rule = this.config.workerReleaseFails;
    if (rule === undefined || rule.next <= 0) return false;
    rule.next -= 1;
    return true;
  }

  /** Kinds are tried in a fixed order and the first that fires wins. */
  decide(method: string, path = ""): Fault | undefined {
    const { tooManyRequests, serverErrors, drops } = this.config;
    if (this.fires(tooManyRequests, method, path)) {
      // Real gateways answer 429 in either form; alternate so clients must handle both.
      return { kind: "too_many_requests", plainText: this.throttled++ % 2 === 0 };
    }
    if (serverErrors && this.fires(serverErrors, method, path)) {
      return { kind: "server_error", status: serverErrors.status ?? 503 };
    }
    if (drops && this.fires(drops, method, path)) {
      return { kind: drops.afterHandling === true ? "drop_after_handling" : "drop" };
    }
    return undefined;
  }

  private fires(rule: FaultRule | undefined, method: string, path: string): boolean {
    if (rule === undefined) return false;
    if (rule.methods && !rule.methods.some((m) => m.toUpperCase() === method)) return false;
    if (rule.paths && !rule.paths.some((prefix) => path.startsWith(prefix))) return false;
    if (rule.next !== undefined && rule.next > 0) {
      rule.next -= 1;
      return true;
    }
    return rule.rate !== undefined && rule.rate > 0 && this.random() < rule.rate;
  }
}
