/**
 * pulumi-gpucloud: a GPU cloud's volumes, secrets, webhooks, instances, SSH keys and API keys as
 * Pulumi resources.
 *
 * Configure with `gpucloud:apiKey` (secret) and `gpucloud:baseUrl`, or GPUCLOUD_API_KEY and
 * GPUCLOUD_BASE_URL.
 */
export { Secret, type SecretArgs } from "./resources/secret";
export { Webhook, type WebhookArgs } from "./resources/webhook";
export { Volume, type VolumeArgs } from "./resources/volume";
export { Overlay, type OverlayArgs } from "./resources/overlay";
export { NetworkVolume, type NetworkVolumeArgs } from "./resources/network-volume";
export { Instance, type InstanceArgs, type InstanceAttempt } from "./resources/instance";
export { NodeGroup, type NodeGroupArgs } from "./resources/node-group";
export { SshKey, type SshKeyArgs } from "./resources/ssh-key";
export { Endpoint, type EndpointArgs } from "./resources/endpoint";
export { WorkerGroup, type WorkerGroupArgs } from "./resources/worker-group";
export { Template, type TemplateArgs, type TemplateDockerLoginArgs } from "./resources/template";
export {
  ApiKey,
  type ApiKeyArgs,
  type ApiKeyCategory,
  type ApiKeyPermissionsArgs,
} from "./resources/api-key";
export { getCurrentUser, cancelRsyncCopy, getOffers, getVolumeOffers } from "./functions";
export { getTemplates } from "./functions";
export { getInstances } from "./functions";
export { getCharges, getInvoices } from "./functions";
export type { Charges, ChargesRequest, ChargeSummary, Invoices, InvoicesRequest } from "./client";
export type { InstanceQuery, InstanceSummary } from "./client";
export type { InstanceOffer, InstanceOfferQuery, VolumeOffer, VolumeOfferQuery } from "./client";
export type { TemplateQuery, TemplateSummary } from "./client";
export * as client from "./client";
export { GpuCloudClient, GpuCloudError } from "./client";
