import { CommandsApi } from "./commands";
import { InstancesApi } from "./instances";
import { SecretsApi } from "./secrets";
import { Transport, type TransportOptions } from "./transport";
import { UsersApi } from "./users";
import { VolumesApi } from "./volumes";
import { WebhooksApi } from "./webhooks";

export { deleteUnlessGone, GpuCloudError } from "./errors";
export { closeAllPools, type RetryEvent, type TransportOptions } from "./transport";
export { defaultRetryPolicy, exponentialBackoff, type Backoff, type RetryPolicy } from "./retry";
export type { CurrentUser } from "./users";
export type { MaskedSecrets } from "./secrets";
export type { Webhook, CreatedWebhook, WebhookFields } from "./webhooks";
export type { AcceptVolumeAskOptions, Volume, VolumeOffer } from "./volumes";
export { volumeIdOf } from "./volumes";
export type { Instance, InstanceOffer, CreateInstanceRequest } from "./instances";
export { deadEndStatuses, environmentOf } from "./instances";
export type { RemoteCopy, RemoteCopyStarted } from "./commands";

/** A typed client for the whole GPU cloud API, one area per property. */
export class GpuCloudClient {
  readonly users: UsersApi;
  readonly secrets: SecretsApi;
  readonly webhooks: WebhooksApi;
  readonly volumes: VolumesApi;
  readonly instances: InstancesApi;
  readonly commands: CommandsApi;

  constructor(options: TransportOptions) {
    const transport = new Transport(options);
    this.users = new UsersApi(transport);
    this.secrets = new SecretsApi(transport);
    this.webhooks = new WebhooksApi(transport);
    this.volumes = new VolumesApi(transport);
    this.instances = new InstancesApi(transport);
    this.commands = new CommandsApi(transport);
  }
}
