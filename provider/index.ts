/**
 * pulumi-gpucloud: a GPU cloud's volumes, secrets, webhooks, instances, SSH keys and API keys as
 * Pulumi resources.
 *
 * Configure with `gpucloud:apiKey` (secret) and `gpucloud:baseUrl`, or GPUCLOUD_API_KEY and
 * GPUCLOUD_BASE_URL.
 */
// The resource classes and their types, from the registry (generated: provider/classes.ts).
export * from "./classes";
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
