import { GpuCloudClient, type InstanceOfferRow } from "../provider/client";
import { type OfferReads, offerReadsFor } from "../provider/pricing/offer-reads";

// What the pack asks the service, when it may: the offers of explicit asks, the offers the
// provider's pricing reads (provider/pricing/offer-reads.ts), and the machine a volume is on. An
// analyzer is not handed the stack's secret configuration (gpucloud:apiKey), so the pack reads
// credentials from its own environment, GPUCLOUD_API_KEY and GPUCLOUD_BASE_URL, as the provider
// does when the stack sets none; without them it prices and checks from the plan alone
// (docs/guides/policy.md says what each rule then does).

/** What the rules need of an offer. */
export interface OfferFacts {
  readonly askId: number;
  readonly gpuName: string;
  readonly dollarsPerHour: number;
  readonly reliability: number | null;
  readonly verified: boolean | null;
}

/** The service's offers, as far as the rules read them. */
export interface Market {
  /** The offers of these asks that the service lists (rented ones included), by ask. */
  askOffers(asks: readonly number[]): Promise<ReadonlyMap<number, OfferFacts>>;
  /** The reads the provider's pricing makes, shared within one policy run. */
  readonly reads: OfferReads;
  /** The machine a volume of the account is on; undefined when there is none. */
  volumeMachine(volumeId: number): Promise<number | undefined>;
  close(): Promise<void>;
}

function factsOfRow(row: InstanceOfferRow): OfferFacts {
  return {
    askId: row.id,
    gpuName: row.gpu_name,
    dollarsPerHour: row.dph_total,
    reliability: row.reliability ?? null,
    verified:
      row.verification === undefined || row.verification === null
        ? null
        : row.verification === "verified",
  };
}

/** A market over the service named by the environment, or undefined without credentials. */
export function marketFromEnv(env: NodeJS.ProcessEnv = process.env): Market | undefined {
  const apiKey = env["GPUCLOUD_API_KEY"];
  const baseUrl = env["GPUCLOUD_BASE_URL"];
  if (!apiKey || !baseUrl) return undefined;
  const client = new GpuCloudClient({ baseUrl, apiKey, timeoutMs: 15_000 });
  return {
    async askOffers(asks) {
      if (asks.length === 0) return new Map();
      // Rented asks are searched too (as the Instance's placement check does): the ask an
      // instance holds is rented, and still priced.
      const rows = await client.instances.searchOffers({
        id: { in: [...asks] },
        rented: {},
        rentable: {},
        verified: {},
      });
      return new Map(rows.map((row) => [row.id, factsOfRow(row)]));
    },
    reads: offerReadsFor(client),
    async volumeMachine(volumeId) {
      const volume = (await client.volumes.list()).find((one) => one.id === volumeId);
      return volume?.machine_id ?? undefined;
    },
    close: () => client.close(),
  };
}
