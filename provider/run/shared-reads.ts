import type {
  GpuCloudClient,
  InstanceOffer,
  InstanceOfferRow,
  Search,
  VolumeOffer,
  Instance as InstanceWire,
  Volume,
  VolumeOfferRow,
} from "../client";
import { once } from "./once";

/**
 * Reads a run makes once and shares with every resource that asks: one request each, however
 * many resources of the run ask (a `pulumi` operation checks and creates hundreds). A failed
 * read is not kept (once.ts); a read that must not fail a check says so where it is made.
 */
export class SharedReads {
  /** The offers of each ask list (Instance check): many instances usually share their asks. */
  readonly instanceOffersByAsks = new Map<string, Promise<InstanceOfferRow[]>>();

  /** Each ask's volume offer (Volume check): its disk_space is the most a volume from it holds. */
  readonly volumeOfferByAsk = new Map<number, Promise<VolumeOfferRow | undefined>>();

  /** Each ask's network volume offers (NetworkVolume check, at preview and again at the update). */
  readonly networkVolumeOffersByAsk = new Map<number, Promise<VolumeOfferRow[] | undefined>>();

  /**
   * Offer searches by query, keyed by the query as JSON (the plan's prices: every resource of
   * a query shares one search; undefined when it failed, which prices nothing).
   */
  readonly instanceOfferSearches = new Map<string, Promise<Search<InstanceOffer> | undefined>>();
  readonly volumeOfferSearches = new Map<string, Promise<Search<VolumeOffer> | undefined>>();
  readonly networkVolumeOfferSearches = new Map<string, Promise<Search<VolumeOffer> | undefined>>();

  /**
   * This stack's possible leftovers as the run found them, by stack token
   * (renting/adoption.ts says why one list serves every create of the run).
   */
  readonly leftoversByStack = new Map<string, () => Promise<InstanceWire[]>>();

  /**
   * The account's SSH keys before this run created any: after a lost create reply, a key with
   * the same data that is neither among them nor made by this run can only be that create's.
   */
  readonly sshKeyIdsBefore: () => Promise<Set<number>>;

  /** The account's API keys before this run created any (as the SSH keys'). */
  readonly apiKeyIdsBefore: () => Promise<Set<number>>;

  /** The account's secrets' keys before this run created any: one list per run, not per create. */
  readonly secretKeysBefore: () => Promise<Set<string>>;

  /**
   * The account's volumes before this run, of either kind (Volume, NetworkVolume, a NodeGroup's
   * volume): one list per run, not one per create.
   */
  readonly volumeIdsBefore: () => Promise<Set<number>>;

  /**
   * The account's volumes as the run first lists them, for the volumes instances link (their
   * machine, their cluster): one list per run, however many instances link one. Never for what
   * a create made: `volume` looks again for a volume the list lacks.
   */
  readonly volumes: () => Promise<Volume[]>;

  /** The notification types webhooks subscribe to: the catalogue changes rarely. */
  readonly notificationTypeKeys: () => Promise<string[]>;

  /** The caller's user id: template searches are narrowed to its templates. */
  readonly accountId: () => Promise<number>;

  readonly #client: () => GpuCloudClient;

  constructor(client: () => GpuCloudClient) {
    const ids = <T>(rows: readonly { id: T }[]) => new Set(rows.map((row) => row.id));
    this.sshKeyIdsBefore = once(async () => ids(await client().sshKeys.list()));
    this.apiKeyIdsBefore = once(async () => ids(await client().apiKeys.list()));
    this.secretKeysBefore = once(async () => new Set(Object.keys(await client().secrets.list())));
    this.volumeIdsBefore = once(async () => ids(await client().volumes.list()));
    this.volumes = once(async () => client().volumes.list());
    this.#client = client;
    this.notificationTypeKeys = once(async () =>
      (await client().webhooks.notificationTypes()).map((type) => type.key),
    );
    this.accountId = once(async () => (await client().users.current()).id);
  }

  /**
   * A volume of the account, from the run's one list; one the list lacks (made since, in this
   * run or outside it) is looked for in a fresh list before it counts as missing.
   */
  async volume(volumeId: number): Promise<Volume | undefined> {
    const listed = (await this.volumes()).find((volume) => volume.id === volumeId);
    if (listed !== undefined) return listed;
    return (await this.#client().volumes.list()).find((volume) => volume.id === volumeId);
  }
}
