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
  /**
   * Test-only (the client never reads it): the service's operations of this area, by
   * `<METHOD> <path>` as the client sends them ({id} for an id), as the service's documents give
   * them. test/contract/audit/service-audit.test.ts holds every request the client sends against
   * them, and each against a request the client sends. An operation that several areas send
   * (an offer search) is given once, by the area whose part of the API it is.
   */
  readonly documents: Readonly<Record<string, DocumentedOperation>>;
}

/**
 * An operation as the service's documents give it: the OpenAPI description
 * (reference/service-openapi.yaml), the official client (vastai 1.9.1, and the legacy vast.py of
 * vastai 0.5.0, which the service's guides quote) and the specification where it describes an
 * operation in full. Transcribed facts: every query parameter and top-level body field one of
 * them documents or sends (the legacy client's `api_key` left out).
 */
export interface DocumentedOperation {
  /** The documents that give the operation. */
  readonly by: readonly string[];
  readonly query?: readonly string[];
  readonly body?: readonly string[];
}

/** The sets of documents that give most operations, as `by` names them. */
export const documentedBy = {
  /** The OpenAPI and both official clients. */
  all: ["the OpenAPI", "vastai 1.9.1", "vast.py 0.5.0"],
  /** Both official clients, not the OpenAPI. */
  clients: ["vastai 1.9.1", "vast.py 0.5.0"],
  openApi: ["the OpenAPI"],
} as const;
