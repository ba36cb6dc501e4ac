/**
 * pulumi-gpucloud: a GPU cloud's volumes, secrets, webhooks and instances as Pulumi resources.
 *
 * Configure with `gpucloud:apiKey` (secret) and `gpucloud:baseUrl`, or GPUCLOUD_API_KEY and
 * GPUCLOUD_BASE_URL.
 */
export { Secret, type SecretArgs } from "./resources/secret";
export { Webhook, type WebhookArgs } from "./resources/webhook";
export { Volume, type VolumeArgs } from "./resources/volume";
export { Instance, type InstanceArgs, type InstanceAttempt } from "./resources/instance";
export { getCurrentUser, cancelRsyncCopy } from "./functions";
export * as client from "./client";
export { GpuCloudClient, GpuCloudError } from "./client";
