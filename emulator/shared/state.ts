import { z } from "zod";
import {
  DEFAULT_USER,
  SecretSchema,
  SshKeyAttachmentSchema,
  SshKeySchema,
  UserSchema,
  WebhookSchema,
} from "../accounts/account-state";
import { InvoiceSchema, MeterSchema } from "../billing/billing-state";
import {
  BootOutcomeSchema,
  CopySchema,
  InstanceSchema,
  OverlaySchema,
} from "../instances/instance-state";
import { InstanceAskSchema, NetworkVolumeAskSchema, VolumeAskSchema } from "../market/asks";
import { generateMarket } from "../market/market-gen";
import {
  SEEDED_INSTANCE_ASKS,
  SEEDED_NETWORK_VOLUME_ASKS,
  SEEDED_VOLUME_ASKS,
} from "../market/seeded-asks";
import type { EmulatorSettings } from "../options";
import { EndpointSchema, WorkerGroupSchema } from "../serverless/serverless-state";
import { SEEDED_TEMPLATES, TemplateSchema } from "../templates/template-state";
import { NetworkVolumeSchema, VolumeSchema } from "../volumes/volume-state";

/**
 * The whole of the emulator's state, as the state file holds it: the market's asks and the
 * account's resources, each area's records under one version. Each area defines its own
 * records; this is where they meet.
 */

const FIRST_IDS = {
  webhook: 1,
  volume: 5001,
  instance: 1000001,
  template: 300001,
  endpoint: 7001,
  workerGroup: 9001,
  overlay: 1,
  invoice: 1,
};

const FIRST_SSH_KEY_ID = 1;

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
    invoice: z.int().default(FIRST_IDS.invoice),
  }),
  sshKeys: z.array(SshKeySchema).default([]),
  sshKeyAttachments: z.array(SshKeyAttachmentSchema).default([]),
  nextSshKeyId: z.int().default(FIRST_SSH_KEY_ID),
  /** The account's templates and other users' public ones (the seeded ones stay on reset). */
  templates: z.array(TemplateSchema).default(() => [...structuredClone(SEEDED_TEMPLATES)]),
  endpoints: z.array(EndpointSchema).default([]),
  workerGroups: z.array(WorkerGroupSchema).default([]),
  // Clusters: network-volume asks, network volumes and overlays; defaults let state files from
  // before them load.
  networkVolumeAsks: z.array(NetworkVolumeAskSchema).default([]),
  networkVolumes: z.array(NetworkVolumeSchema).default([]),
  overlays: z.array(OverlaySchema).default([]),
  // The bills: a meter per contract (ended ones kept) and the invoices; defaults let state files
  // from before them load (their contracts are metered from their creation).
  meters: z.array(MeterSchema).default([]),
  invoices: z.array(InvoiceSchema).default([]),
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
  state.meters = [];
  state.invoices = [];
}

export function initialState(settings: EmulatorSettings): State {
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
    meters: [],
    invoices: [],
  };
}
