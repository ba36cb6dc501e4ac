import { ClientAreas } from "./areas";
import type { InstanceOfferQuery, VolumeOfferQuery } from "./offer-query-language";
import type { InstanceOffer, VolumeOffer } from "./offer-schemas";
import { Transport, type TransportOptions } from "./transport";

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
export type { InstanceFilterValues, InstanceListQuery, InstanceOfferRow } from "./instances";
export { deadEndStatuses, environmentOf, type Instance } from "./instance-rows";
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
  TemplateQueryError,
  type SavedTemplate,
  type Template,
  type TemplateFields,
  type TemplateQuery,
  type TemplateSearch,
} from "./templates";
export { templateSummaryOf, type TemplateSummary } from "./template-summaries";
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

/**
 * A typed client for the whole GPU cloud API, one area per property (ClientAreas, generated
 * from the areas' modules: client-area.ts).
 */
export class GpuCloudClient extends ClientAreas {
  readonly #transport: Transport;

  constructor(options: TransportOptions) {
    const transport = new Transport(options);
    super(transport);
    this.#transport = transport;
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
