import type { Transport } from "./transport";

/**
 * An API area of the client, as its module declares it (`export const area`): the property of
 * `GpuCloudClient` that holds it and its class. The client's properties are generated from the
 * areas' modules (provider/client/areas.ts, `npm run gen-registry`): a new area edits no list.
 */
export interface ClientArea {
  /** Its property on the client: `sshKeys` for `client.sshKeys`. */
  readonly property: string;
  /** Its class, made with the client's transport. */
  readonly Api: new (transport: Transport) => object;
  /** The property's description, when its name does not say enough. */
  readonly description?: string;
}
