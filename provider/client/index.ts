import { ApiKeysApi } from "./api-keys";
import { BillingApi } from "./billing";
import { CommandsApi } from "./commands";
import { EndpointsApi } from "./endpoints";
import { InstancesApi } from "./instances";
import type { InstanceOfferQuery, VolumeOfferQuery } from "./offer-query-language";
import type { InstanceOffer, VolumeOffer } from "./offer-schemas";
import { OffersApi } from "./offers";
import { OverlaysApi } from "./overlays";
import { SecretsApi } from "./secrets";
import { SshKeysApi } from "./ssh-keys";
import { TemplatesApi } from "./templates";
import { Transport, type TransportOptions } from "./transport";
import { UsersApi } from "./users";
import { VolumesApi } from "./volumes";
import { WebhooksApi } from "./webhooks";
import { WorkerGroupsApi } from "./worker-groups";

export { deleteUnlessGone, GpuCloudError } from "./errors";
export {
  closeAllPools,
  ConnectionPools,
  type RetryEvent,
  type TransportOptions,
} from "./transport";
export { defaultRetryPolicy, exponentialBackoff, type Backoff, type RetryPolicy } from "./retry";
export type { CurrentUser } from "./users";
export type { MaskedSecrets } from "./secrets";
export type { Webhook, CreatedWebhook, WebhookFields, NotificationType } from "./webhooks";
export type { AcceptVolumeAskOptions, Volume, VolumeOfferRow } from "./volumes";
export { isNetworkVolume, volumeIdOf, volumeMountEnv } from "./volumes";
export { overlayJoinEnv, type Overlay } from "./overlays";
export type {
  Instance,
  InstanceFilterValues,
  InstanceListQuery,
  InstanceOfferRow,
} from "./instances";
export { deadEndStatuses, environmentOf } from "./instances";
export { bidBounds, type CreateInstanceRequest, type InstanceState } from "./instance-requests";
export {
  camelCaseQuery,
  closestName,
  compileInstanceOfferQuery,
  compileVolumeOfferQuery,
  withCondition,
  type CompiledQuery,
} from "./offer-query";
export {
  OfferQueryError,
  type InstanceOfferQuery,
  type VolumeOfferQuery,
} from "./offer-query-language";
export type { InstanceOffer, VolumeOffer } from "./offer-schemas";
export type { RejectedOffer, Search } from "./offers";
export type { RemoteCopy, RemoteCopyStarted } from "./commands";
export type { SshKey, InstanceSshKey } from "./ssh-keys";
export {
  compileTemplateQuery,
  templateSummaryOf,
  TemplateQueryError,
  type SavedTemplate,
  type Template,
  type TemplateFields,
  type TemplateQuery,
  type TemplateSearch,
  type TemplateSummary,
} from "./templates";
export type { ApiKey, ApiKeyPermissions, CreatedApiKey, CreateApiKeyRequest } from "./api-keys";
export type { DeletedWorkers, Endpoint, EndpointFields } from "./endpoints";
export { isEndpointGone } from "./endpoints";
export type { WorkerGroup, WorkerGroupFields, WorkerGroupUpdate } from "./worker-groups";
export type { ChargeRow, ChargesQuery, ChargeType, InvoiceRow, InvoicesQuery } from "./billing";
export type {
  Charges,
  ChargesRequest,
  ChargeSummary,
  Invoices,
  InvoicesRequest,
} from "./charge-summaries";
export {
  instanceQuerySchema,
  instanceSummaryOf,
  listQueryOf,
  type InstanceQuery,
  type InstanceSummary,
} from "./instance-summaries";

/** A typed client for the whole GPU cloud API, one area per property. */
export class GpuCloudClient {
  readonly users: UsersApi;
  readonly secrets: SecretsApi;
  readonly webhooks: WebhooksApi;
  readonly volumes: VolumesApi;
  readonly instances: InstancesApi;
  readonly commands: CommandsApi;
  readonly sshKeys: SshKeysApi;
  readonly apiKeys: ApiKeysApi;
  readonly templates: TemplatesApi;
  /** Typed offer searches that check the answers (see searchOffers). */
  readonly offers: OffersApi;
  /** Serverless endpoints. */
  readonly endpoints: EndpointsApi;
  /** Serverless worker groups. */
  readonly workerGroups: WorkerGroupsApi;
  /** Overlay networks on physical clusters. */
  readonly overlays: OverlaysApi;
  /** What the account was charged, per contract, and its invoices. */
  readonly billing: BillingApi;

  readonly #transport: Transport;

  constructor(options: TransportOptions) {
    const transport = new Transport(options);
    this.#transport = transport;
    this.users = new UsersApi(transport);
    this.secrets = new SecretsApi(transport);
    this.webhooks = new WebhooksApi(transport);
    this.volumes = new VolumesApi(transport);
    this.instances = new InstancesApi(transport);
    this.commands = new CommandsApi(transport);
    this.sshKeys = new SshKeysApi(transport);
    this.apiKeys = new ApiKeysApi(transport);
    this.templates = new TemplatesApi(transport);
    this.offers = new OffersApi(transport);
    this.endpoints = new EndpointsApi(transport);
    this.workerGroups = new WorkerGroupsApi(transport);
    this.overlays = new OverlaysApi(transport);
    this.billing = new BillingApi(transport);
  }

  /** Closes the client's connections (those of the pools it was given, too). */
  close(): Promise<void> {
    return this.#transport.close();
  }

  /**
   * Instance offers matching the query (an object or the official client's string syntax),
   * cheapest first unless `order` says otherwise. A malformed query throws OfferQueryError and
   * sends nothing; answered offers that do not match are left out.
   */
  async searchOffers(
    query: InstanceOfferQuery | string = {},
    signal?: AbortSignal,
  ): Promise<InstanceOffer[]> {
    return (await this.offers.searchInstances(query, signal)).offers;
  }

  /** Volume offers matching the query, cheapest per GB-month first unless `order` says otherwise. */
  async searchVolumeOffers(
    query: VolumeOfferQuery | string = {},
    signal?: AbortSignal,
  ): Promise<VolumeOffer[]> {
    return (await this.offers.searchVolumes(query, signal)).offers;
  }
}
