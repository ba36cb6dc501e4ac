import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import {
  MountSchema,
  NetworkVolumeAskSchema,
  NetworkVolumeSchema,
  OverlayMembershipSchema,
  OverlaySchema,
} from "../market/cluster-state";
import { type EmulatorSettings, InstanceAskSchema, VolumeAskSchema } from "../options";
import { generateMarket } from "../market/market-gen";
import {
  DEFAULT_USER,
  FIRST_IDS,
  SEEDED_INSTANCE_ASKS,
  SEEDED_NETWORK_VOLUME_ASKS,
  SEEDED_VOLUME_ASKS,
} from "../market/seeded-asks";
import { EndpointSchema, WorkerGroupSchema } from "../serverless/serverless-state";
import { SEEDED_TEMPLATES, TemplateSchema } from "../templates/template-state";

const FIRST_SSH_KEY_ID = 1;

export const BootStatusSchema = z.enum(["running", "exited", "unknown", "offline"]);
export type BootStatus = z.infer<typeof BootStatusSchema>;

export const BootOutcomeSchema = z.object({
  status: BootStatusSchema,
  afterPolls: z.int().nonnegative().optional(),
  afterSeconds: z.number().nonnegative().optional(),
  statusMsg: z.string().optional(),
});

export const RuntypeSchema = z.enum(["ssh", "jupyter", "args", "vm"]);

const UserSchema = z.object({
  id: z.int(),
  email: z.string(),
  creditDollars: z.number(),
  sshKey: z.string(),
});

const SecretSchema = z.object({ key: z.string(), value: z.string() });

const WebhookSchema = z.object({
  id: z.int(),
  name: z.string().nullable(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  createdAt: z.string(),
  /** Absent in state files written before updates were recorded. */
  updatedAt: z.string().optional(),
  secret: z.string(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

const VolumeSchema = z.object({
  id: z.int(),
  askId: z.int(),
  sizeGb: z.int(),
  /** The name given at create (the official client's `create volume -n`), shown as `label`. */
  label: z.string().nullable(),
  createdAtMs: z.number(),
  /** A copy of the ask as it was; volumes from before this field use the listed ask. */
  offer: VolumeAskSchema.optional(),
});
export type Volume = z.infer<typeof VolumeSchema>;

const InstanceSchema = z.object({
  id: z.int(),
  /** A copy of the ask as it was, since asks can be replaced while the instance lives. */
  offer: InstanceAskSchema,
  image: z.string(),
  diskGb: z.number(),
  onstart: z.string().nullable(),
  env: z.record(z.string(), z.string()),
  label: z.string().nullable(),
  runtype: RuntypeSchema,
  bidDollarsPerHour: z.number().nullable(),
  imageLogin: z.string().nullable(),
  createdAtMs: z.number(),
  polls: z.int().nonnegative(),
  boot: BootOutcomeSchema.extend({ afterPolls: z.int().nonnegative() }),
  // Stop/start (PUT /api/v0/instances/{id}/ {state}). Defaults let older state files load.
  intendedStatus: z.enum(["running", "stopped"]).default("running"),
  /** When it was last started again after a stop; null: never stopped and started. */
  restartedAtMs: z.number().nullable().default(null),
  /** An existing volume linked at create (`volume_info` with `create_new: false`). */
  volume: z.object({ volumeId: z.int(), mountPath: z.string() }).nullable().default(null),
  /** The template it was launched from (`template_hash_id` at create). */
  template: z
    .object({ id: z.int(), hashId: z.string(), name: z.string() })
    .nullable()
    .default(null),
  /** The serverless worker group that rented it, while it belongs to one. */
  workerGroupId: z.int().nullable().default(null),
  /** Being released (a deleted worker group's worker): gone from the account at this time. */
  releaseAtMs: z.number().nullable().default(null),
  /** An interruptible instance that lost its machine to this higher bid ($/hour). */
  outbidDollarsPerHour: z.number().nullable().default(null),
  /** The overlay network it is on, and its address there (one overlay at most). */
  overlay: OverlayMembershipSchema.nullable().default(null),
  /** Volumes mounted through `-v <name>:<path>` env entries (beside `volume`). */
  mounts: z.array(MountSchema).default([]),
});
export type Instance = z.infer<typeof InstanceSchema>;

// SSH keys (accounts/ssh-key-routes.ts, accounts/ssh-keys.ts). Attachment records are made per instance on first use:
// an instance carries the account's keys from before its creation plus those attached since.
const SshKeySchema = z.object({ id: z.int(), publicKey: z.string(), createdAtMs: z.number() });
export type SshKey = z.infer<typeof SshKeySchema>;
const SshKeyAttachmentSchema = z.object({ instanceId: z.int(), sshKeyIds: z.array(z.int()) });
export type SshKeyAttachment = z.infer<typeof SshKeyAttachmentSchema>;

const CopySchema = z.object({
  /** Where the data comes from: an instance, the caller's machine, or a volume. */
  source: z.enum(["instance", "local", "volume"]).default("instance"),
  srcInstanceId: z.int().nullable(),
  srcVolumeId: z.int().nullable().default(null),
  dstInstanceId: z.int(),
  srcPath: z.string(),
  dstPath: z.string(),
  startedAtMs: z.number(),
});

export const StateSchema = z.object({
  version: z.literal(1),
  user: UserSchema,
  volumeAsks: z.array(VolumeAskSchema),
  instanceAsks: z.array(InstanceAskSchema),
  secrets: z.array(SecretSchema),
  webhooks: z.array(WebhookSchema),
  volumes: z.array(VolumeSchema),
  instances: z.array(InstanceSchema),
  copies: z.array(CopySchema),
  bootQueue: z.array(BootOutcomeSchema),
  nextIds: z.object({
    webhook: z.int(),
    volume: z.int(),
    instance: z.int(),
    // Defaults let state files from before templates and serverless load.
    template: z.int().default(FIRST_IDS.template),
    endpoint: z.int().default(FIRST_IDS.endpoint),
    workerGroup: z.int().default(FIRST_IDS.workerGroup),
    overlay: z.int().default(FIRST_IDS.overlay),
  }),
  sshKeys: z.array(SshKeySchema).default([]),
  sshKeyAttachments: z.array(SshKeyAttachmentSchema).default([]),
  nextSshKeyId: z.int().default(FIRST_SSH_KEY_ID),
  /** The account's templates and other users' public ones (the seeded ones stay on reset). */
  templates: z.array(TemplateSchema).default(() => [...structuredClone(SEEDED_TEMPLATES)]),
  endpoints: z.array(EndpointSchema).default([]),
  workerGroups: z.array(WorkerGroupSchema).default([]),
  // Clusters (market/cluster-state.ts); defaults let state files from before them load.
  networkVolumeAsks: z.array(NetworkVolumeAskSchema).default([]),
  networkVolumes: z.array(NetworkVolumeSchema).default([]),
  overlays: z.array(OverlaySchema).default([]),
});
export type State = z.infer<typeof StateSchema>;

/** Empties the account's resources; the user and the asks are the world around it, so they stay. */
export function clearResources(state: State): void {
  state.secrets = [];
  state.webhooks = [];
  state.volumes = [];
  state.instances = [];
  state.copies = [];
  state.bootQueue = [];
  state.nextIds = { ...FIRST_IDS };
  state.sshKeys = [];
  state.sshKeyAttachments = [];
  state.nextSshKeyId = FIRST_SSH_KEY_ID;
  state.templates = state.templates.filter((t) => t.creatorId !== state.user.id);
  state.endpoints = [];
  state.workerGroups = [];
  state.networkVolumes = [];
  state.overlays = [];
}

function initialState(settings: EmulatorSettings): State {
  const market = settings.market
    ? generateMarket(settings.market)
    : { instanceAsks: [], volumeAsks: [], networkVolumeAsks: [] };
  return {
    version: 1,
    user: { ...DEFAULT_USER },
    volumeAsks: [...structuredClone(SEEDED_VOLUME_ASKS), ...market.volumeAsks],
    instanceAsks: [...structuredClone(SEEDED_INSTANCE_ASKS), ...market.instanceAsks],
    secrets: [],
    webhooks: [],
    volumes: [],
    instances: [],
    copies: [],
    bootQueue: [],
    nextIds: { ...FIRST_IDS },
    sshKeys: [],
    sshKeyAttachments: [],
    nextSshKeyId: FIRST_SSH_KEY_ID,
    templates: [...structuredClone(SEEDED_TEMPLATES)],
    endpoints: [],
    workerGroups: [],
    networkVolumeAsks: [
      ...structuredClone(SEEDED_NETWORK_VOLUME_ASKS),
      ...market.networkVolumeAsks,
    ],
    networkVolumes: [],
    overlays: [],
  };
}

function loadState(file: string): State | undefined {
  if (!fs.existsSync(file)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    // JSON.parse's message quotes the file, which holds secret values.
    throw new Error(`Emulator state file ${file} is not valid JSON; delete it to start afresh.`);
  }
  const result = StateSchema.safeParse(json);
  if (!result.success) {
    throw new Error(
      `Emulator state file ${file} is not valid emulator state; delete it to start afresh.\n` +
        z.prettifyError(result.error),
    );
  }
  return result.data;
}

/** A crash mid-write must leave the previous state, so write a sibling and rename it over. */
function writeAtomically(file: string, text: string): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
  try {
    const fd = fs.openSync(temp, "w", 0o600);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

export class Store {
  private constructor(
    public readonly state: State,
    private readonly file: string | undefined,
  ) {}

  static open(settings: EmulatorSettings): Store {
    const file = settings.stateFile === undefined ? undefined : path.resolve(settings.stateFile);
    const state = (file === undefined ? undefined : loadState(file)) ?? initialState(settings);
    if (settings.volumeAsks) state.volumeAsks = structuredClone(settings.volumeAsks);
    if (settings.instanceAsks) state.instanceAsks = structuredClone(settings.instanceAsks);
    if (settings.networkVolumeAsks) {
      state.networkVolumeAsks = structuredClone(settings.networkVolumeAsks);
    }
    const store = new Store(state, file);
    store.save();
    return store;
  }

  /** Every change goes through here so that none escapes the state file. */
  mutate<T>(change: (state: State) => T): T {
    const result = change(this.state);
    this.save();
    return result;
  }

  private save(): void {
    if (this.file !== undefined) writeAtomically(this.file, JSON.stringify(this.state, null, 2));
  }
}
