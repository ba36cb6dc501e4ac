import type { z } from "zod";
import type { ResourceImplementation } from "../shared/resource-implementation";
import { ownerOf, stackPrefixOf } from "../renting/identity";
import * as apiKey from "../resources/api-key";
import * as endpoint from "../resources/endpoint";
import * as instance from "../resources/instance";
import * as instanceSweeper from "../resources/instance-sweeper";
import * as networkVolume from "../resources/network-volume";
import * as nodeGroup from "../resources/node-group";
import * as overlay from "../resources/overlay";
import * as secret from "../resources/secret";
import * as sshKey from "../resources/ssh-key";
import * as template from "../resources/template";
import * as volume from "../resources/volume";
import * as webhook from "../resources/webhook";
import * as workerGroup from "../resources/worker-group";

type Props = Record<string, unknown>;

/** The package's name in Pulumi: every type token starts with it. */
export const packageName = "gpucloud";

/** One resource type the plugin serves: the same module the dynamic entry forwards to. */
export interface NativeResource {
  /** `gpucloud:index:<Type>`'s last part; the TypeScript class's name. */
  readonly type: string;
  /** The one implementation (check, diff, create, read, update, delete), given the run. */
  readonly implementation: ResourceImplementation<Props, Props>;
  /** The zod definitions the implementation checks with: the schema is generated from them. */
  readonly inputs: z.ZodObject;
  readonly outputs: z.ZodObject;
  /**
   * Inputs that the TypeScript class sets itself (never the program): absent from the schema;
   * `fill` sets them from what the engine tells the plugin.
   */
  readonly hidden: readonly string[];
  /**
   * Inputs optional in the schema though the zod definition requires them: the class defaults
   * them from the resource's name, or check allows them to be left out (an imported secret's
   * value).
   */
  readonly optional: readonly string[];
  readonly description: string;
  /**
   * Inputs that may hold credentials the schema cannot mark (an environment, whose values a
   * program may give as secrets): a `pulumi import` reads them from the service in plaintext,
   * so the import records them as secrets (more secret, never less).
   */
  readonly importSecrets: readonly string[];
  /**
   * What the TypeScript class adds to the program's inputs, from the URN's parts and the
   * provider's stack token instead of the program; values already present are kept.
   */
  fill(news: Props, resource: ResourceContext): Props;
  /**
   * Whether its creates rent instances, which the stack's sweeper guards: the SDKs make it
   * depend on the sweeper, and a YAML program must (the reference's YAML declares one).
   */
  readonly rentsInstances: boolean;
}

/** What the engine tells the plugin about the resource being checked. */
export interface ResourceContext {
  readonly project: string;
  readonly stack: string;
  readonly name: string;
  /** The provider's stack token (CheckConfig makes it and keeps it in the provider's state). */
  readonly stackToken: string | undefined;
}

const resource = (
  type: string,
  module: { implementation: unknown },
  inputs: z.ZodObject,
  outputs: z.ZodObject,
  description: string,
  extra: Partial<
    Pick<NativeResource, "hidden" | "optional" | "fill" | "importSecrets" | "rentsInstances">
  > = {},
): NativeResource => ({
  type,
  implementation: module.implementation as ResourceImplementation<Props, Props>,
  inputs,
  outputs,
  hidden: extra.hidden ?? [],
  optional: extra.optional ?? [],
  importSecrets: extra.importSecrets ?? [],
  fill: extra.fill ?? ((news) => news),
  rentsInstances: extra.rentsInstances ?? false,
  description,
});

/** Every resource type of the package, by the token's last part. */
export const nativeResources: readonly NativeResource[] = [
  resource(
    "Secret",
    secret,
    secret.secretInputsSchema,
    secret.secretOutputsSchema,
    "An account environment-variable secret. The service returns values only masked, so " +
      "refresh detects a deleted key or an emptied value, not a value changed to another one. " +
      "value is required, except for a secret brought in by pulumi import: left out, the " +
      "service's value is kept; declared, the next up sets it in place.",
    // Imported secrets may leave the value out (secret.ts, keepsImportedValue); check decides.
    { optional: ["value"] },
  ),
  resource(
    "Volume",
    volume,
    volume.volumeInputsSchema,
    volume.volumeOutputsSchema,
    "A disk volume, created by accepting a volume ask (askId) or the best offer matching " +
      "volumeOfferQuery. Any change of ask or size replaces it.",
  ),
  resource(
    "Overlay",
    overlay,
    overlay.overlayInputsSchema,
    overlay.overlayOutputsSchema,
    "An overlay network on a physical cluster: a private LAN (all ports, e.g. for NCCL) for " +
      "the instances that join it (Instance overlay: the overlay's name). name defaults to the " +
      "resource's name with a random suffix. Any change replaces it; deleting it takes its " +
      "members off it, and they keep running.",
    {
      hidden: overlay.overlayResourceInputs.hidden,
      // As the Overlay class does: a name left out is made from the resource's name.
      fill: (news, { name }) => ({ ...news, resourceName: news["resourceName"] ?? name }),
    },
  ),
  resource(
    "NetworkVolume",
    networkVolume,
    networkVolume.networkVolumeInputsSchema,
    networkVolume.networkVolumeOutputsSchema,
    "Storage on a physical cluster's network disk, taken from a network volume ask (askId) or " +
      "the best offer matching offerQuery, which instances on machines of the cluster mount " +
      "(Instance networkVolume), any number at once. Any change of ask, size or name replaces " +
      "it. The service deletes no volume an instance mounts: the instances go first.",
  ),
  resource(
    "Webhook",
    webhook,
    webhook.webhookInputsSchema,
    webhook.webhookOutputsSchema,
    "A webhook of the account: the service POSTs the subscribed notification events to url, " +
      "signed with webhookSecret. Every change updates it in place.",
  ),
  resource(
    "Instance",
    instance,
    instance.instanceInputsSchema,
    instance.instanceOutputsSchema,
    "A GPU instance rented from an ask (askId, askIds) or the best offer matching offerQuery. " +
      "Create waits until it is running; an instance that reaches a dead end is destroyed and " +
      "another is tried, up to maxAttempts. A failed create leaves nothing running.",
    {
      rentsInstances: true,
      hidden: instance.instanceResourceInputs.hidden,
      importSecrets: ["env"],
      // As the Instance class does (instance/resource.ts): the owner names the resource, and the
      // stack token proves the instance is this stack's (renting/identity.ts).
      fill: (news, { project, stack, name, stackToken }) => ({
        ...news,
        owner: news["owner"] ?? ownerOf(project, stack, name),
        ...(stackToken !== undefined && news["stackToken"] === undefined ? { stackToken } : {}),
      }),
    },
  ),
  resource(
    "SshKey",
    sshKey,
    sshKey.sshKeyInputsSchema,
    sshKey.sshKeyOutputsSchema,
    "An SSH public key of the account; its sshKeyId is what Instance.sshKeyIds lists.",
  ),
  resource(
    "ApiKey",
    apiKey,
    apiKey.apiKeyInputsSchema,
    apiKey.apiKeyOutputsSchema,
    "A scoped API key of the account. key is shown by the service only at creation: it is " +
      "stored as a Pulumi secret. Delete revokes it.",
    {
      // As the ApiKey class does: the key's name defaults to the resource's.
      optional: ["name"],
      fill: (news, { name }) => ({ ...news, name: news["name"] ?? name }),
    },
  ),
  resource(
    "Template",
    template,
    template.templateInputsSchema,
    template.templateOutputsSchema,
    "A template of the account: the image, launch settings and defaults instances, endpoints " +
      "and worker groups are launched from (hashId). Every change is an edit in place: " +
      "templateId stays, and hashId changes with the content.",
    { importSecrets: ["env"] },
  ),
  resource(
    "Endpoint",
    endpoint,
    endpoint.endpointInputsSchema,
    endpoint.endpointOutputsSchema,
    "A serverless endpoint: the scaling rules its worker groups share, and what a client " +
      "calls it with: `routeUrl`, `endpointName` and `apiKey` (a secret).",
  ),
  resource(
    "WorkerGroup",
    workerGroup,
    workerGroup.workerGroupInputsSchema,
    workerGroup.workerGroupOutputsSchema,
    "A worker group of a serverless endpoint: workers launched from a template on offers " +
      "matching a query.",
  ),
  resource(
    "NodeGroup",
    nodeGroup,
    nodeGroup.nodeGroupInputsSchema,
    nodeGroup.nodeGroupOutputsSchema,
    "nodeCount GPU instances in one physical cluster, on one overlay network (a private LAN on " +
      "all ports, for NCCL), with an optional network volume every node mounts: multi-node " +
      "training as one resource. Each node has NODE_RANK, WORLD_SIZE and MASTER_ADDR (rank 0's " +
      "overlay address) in its environment. Create chooses the cheapest cluster that holds the " +
      "group and waits until every node runs, or takes the whole group apart.",
    {
      rentsInstances: true,
      hidden: nodeGroup.nodeGroupResourceInputs.hidden,
      importSecrets: ["env"],
      // As the NodeGroup class does: the owner names the group, the token proves its nodes.
      fill: (news, { project, stack, name, stackToken }) => ({
        ...news,
        owner: news["owner"] ?? ownerOf(project, stack, name),
        ...(stackToken !== undefined && news["stackToken"] === undefined ? { stackToken } : {}),
      }),
    },
  ),
];

/**
 * The stack's sweeper (renting/stack-sweeper.ts), which the Python and Go SDKs declare with the
 * first Instance or NodeGroup of a program, as the TypeScript classes do. A YAML program runs no
 * SDK code: it declares the sweeper itself, so the schema has it, as an overlay (`isOverlay`:
 * the SDKs' own code declares it, no class is generated). Its token is its provider's, which
 * the program's instances carry too; its delete, after every instance's, destroys what this
 * stack's interrupted creates left.
 */
export const sweeperResource: NativeResource = resource(
  "InstanceSweeper",
  { implementation: instanceSweeper.pluginImplementation },
  instanceSweeper.sweeperInputsSchema,
  instanceSweeper.sweeperOutputsSchema,
  "The stack's guard against instances its interrupted creates left: a `pulumi up` killed " +
    "while an instance boots leaves it in no resource's state, and the sweeper's delete (at " +
    "`pulumi destroy`, after every instance's) destroys it. Python, Go and TypeScript programs " +
    "get one with their first Instance or NodeGroup. A YAML program declares one, with no " +
    "properties, and makes each Instance and NodeGroup depend on it (`options: dependsOn`). " +
    "It destroys only instances that carry this stack's token and are still labelled as being " +
    "created: never one a resource records or retains, nor another stack's.",
  {
    hidden: instanceSweeper.sweeperResourceInputs.hidden,
    fill: (news, { project, stack, stackToken }) => ({
      ...news,
      ownerPrefix: news["ownerPrefix"] ?? stackPrefixOf(project, stack),
      // The SDKs send null for it (an output they want back).
      stackToken: news["stackToken"] ?? stackToken,
    }),
  },
);

/** The resource a type token names, or undefined. */
export function resourceOf(token: string): NativeResource | undefined {
  const [pkg, module, type] = token.split(":");
  if (pkg !== packageName || module !== "index") return undefined;
  if (type === sweeperResource.type) return sweeperResource;
  return nativeResources.find((candidate) => candidate.type === type);
}

export const typeToken = (type: string): string => `${packageName}:index:${type}`;
