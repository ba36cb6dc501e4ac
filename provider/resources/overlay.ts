import { randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { deleteUnlessGone, GpuCloudError, type Overlay as OverlayWire } from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import type { Run } from "../run/run";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { overlayNameSchema } from "../shared/input-fields";
import { recoverLostCreate } from "../shared/lost-create";
import { checkInputs, containsUnknown, fieldFailure } from "../shared/validation";
import { withExample } from "../shared/reference-examples";

// An overlay network: a private LAN on one physical cluster for the instances that join it
// (Instance `overlay`). Nothing in it is secret: a name, a cluster and a subnet.

// ---- Inputs -------------------------------------------------------------------------------

export const overlayInputsSchema = z.object({
  clusterId: z
    .number({ error: "the id of a physical cluster, as offers show it (clusterId)" })
    .int("clusterId must be a whole number")
    .positive("clusterId must be positive")
    .describe(
      "The physical cluster the overlay is on: an offer's `clusterId` (getOffers with a query " +
        "whose clusterId is not null, the condition neq null, lists the offers in clusters). " +
        "Only instances on " +
        "machines of this cluster can join. Changing it replaces the overlay.",
    )
    .meta({ willReplaceOnChanges: true }),
  name: overlayNameSchema("name")
    .describe(
      "The overlay's name, unique on the account (on every cluster): lowercase letters, " +
        "digits and `-`, at most 64 characters. Default: the resource's name, lowercased and " +
        "reduced to those characters, with a random suffix (kept from then on), so that " +
        "stacks of the same names on one account never collide. Changing it replaces the " +
        "overlay.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  /**
   * The resource's name in the program, set by the Overlay class (a dynamic provider is not
   * told its URN) and by the plugin from the URN: what a name left out is made from. Never a
   * reason to update or replace.
   */
  resourceName: z.string().optional(),
});
export type OverlayInputs = z.infer<typeof overlayInputsSchema>;

/** The Overlay's inputs, as check holds a program's keys against them. */
export const overlayResourceInputs = { type: "Overlay", hidden: ["resourceName"] };

// Overlay's example on its reference page (docs/reference/Overlay.md): an overlay on cluster 101,
// an A100 cluster of the emulator's default market.
withExample(overlayInputsSchema, { inputs: { clusterId: 101 } });

export const overlayOutputsSchema = overlayInputsSchema.extend({
  name: z
    .string()
    .describe("The overlay's name: the one given, or the one made from the resource's name."),
  overlayId: z.number().int().describe("The service's id of the overlay."),
  subnet: z
    .string()
    .nullable()
    .describe(
      "The overlay's private subnet, e.g. `10.100.0.0/24`: each member's overlay address " +
        "(Instance `localIp`) is in it.",
    ),
  instanceIds: z
    .array(z.number().int())
    .describe(
      "The instances on the overlay, as the service showed them when the overlay was created " +
        "or last refreshed (instances join after the overlay exists: a refresh shows them).",
    ),
});
export type OverlayOutputs = z.infer<typeof overlayOutputsSchema>;

// ---- Names --------------------------------------------------------------------------------

const suffixChars = 7;

/**
 * A name made from the resource's name, as Pulumi's own autonaming makes one: lowercased,
 * every run of other characters made one `-`, and a random suffix, so that two stacks whose
 * project, stack and resource names are the same never pick the same name on one account.
 * Check keeps it from then on (from its olds).
 */
export function autonameOf(resourceName: string): string {
  const slug =
    resourceName
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 64 - suffixChars - 1)
      .replace(/-+$/, "") || "overlay";
  return `${slug}-${randomBytes(4).toString("hex").slice(0, suffixChars)}`;
}

// ---- Diff rules ---------------------------------------------------------------------------

/**
 * The service can neither move nor rename an overlay: either change replaces it. Under the same
 * name the old one goes first (names are the account's once); the instances on it leave it
 * with it, and those that take its name are replaced with it by the engine.
 */
export function diffOverlay(olds: OverlayOutputs, news: OverlayInputs): pulumi.dynamic.DiffResult {
  const replaces = (["clusterId", "name"] as const).filter((field) => olds[field] !== news[field]);
  return {
    changes: replaces.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && olds.name === news.name,
  };
}

// ---- CRUD ---------------------------------------------------------------------------------

function outputsOf(inputs: OverlayInputs, overlay: OverlayWire): OverlayOutputs {
  return {
    ...inputs,
    clusterId: overlay.cluster_id,
    name: overlay.name,
    overlayId: overlay.overlay_id,
    subnet: overlay.internal_subnet ?? null,
    instanceIds: overlay.instances ?? [],
  };
}

function inputsOf(outs: OverlayOutputs): OverlayInputs {
  return {
    clusterId: outs.clusterId,
    name: outs.name,
    ...(outs.resourceName === undefined ? {} : { resourceName: outs.resourceName }),
  };
}

/** Whether the market has a machine in the cluster (rented or not); undefined when unknown. */
async function clusterExists(run: Run, clusterId: number): Promise<boolean | undefined> {
  return run.client.instances
    .searchOffers({
      cluster_id: { eq: clusterId },
      rented: {},
      rentable: {},
      verified: {},
      limit: 1,
    })
    .then((offers) => offers.length > 0)
    .catch(() => undefined);
}

export const implementation: ResourceImplementation<OverlayInputs, OverlayOutputs> = {
  async check(run, olds, news) {
    const checked = checkInputs(overlayInputsSchema, news, overlayResourceInputs);
    const { inputs } = checked;
    const failures = [...(await run.configurationFailures()), ...checked.failures];
    // Autonamed once; the olds keep the name from then on (and an imported overlay's name).
    if (news["name"] === undefined) {
      inputs.name =
        typeof olds.name === "string" ? olds.name : autonameOf(inputs.resourceName ?? "overlay");
    }
    const { clusterId, name } = inputs;
    const known = (field: "clusterId" | "name") => !containsUnknown(news[field]);
    const creating = olds.clusterId !== clusterId || olds.name !== name;
    if (failures.length === 0 && name !== undefined && known("name")) {
      // Overlays this run declared (run/made-this-run.ts): two of one name would collide.
      const declared = run.made.declaredOverlays.get(name);
      if (declared !== undefined && declared.resourceName !== inputs.resourceName) {
        failures.push(
          fieldFailure(
            "name",
            `another Overlay of this program (${declared.resourceName ?? "?"}) is named ${name}`,
          ),
        );
      }
    }
    if (failures.length === 0 && creating && known("clusterId")) {
      if ((await clusterExists(run, clusterId)) === false) {
        failures.push(
          fieldFailure(
            "clusterId",
            `no physical cluster ${clusterId} in the market: no offer names it (getOffers with ` +
              "{ clusterId: { neq: null } } lists the offers in clusters, with their clusterId)",
          ),
        );
      }
    }
    // This resource's own name (recorded in the olds) is taken by this resource itself.
    if (failures.length === 0 && name !== undefined && known("name") && olds.name !== name) {
      const taken = await run.client.overlays.named(name).catch(() => undefined);
      if (taken !== undefined) {
        failures.push(
          fieldFailure(
            "name",
            `an overlay named ${name} already exists on the account (overlay ${taken.overlay_id}, ` +
              `cluster ${taken.cluster_id}; names are the account's, on every cluster): choose ` +
              "another, or leave name out to have a unique one made",
          ),
        );
      }
    }
    if (failures.length === 0 && name !== undefined && known("name")) {
      run.made.declaredOverlays.set(name, {
        clusterId: known("clusterId") ? clusterId : undefined,
        resourceName: inputs.resourceName,
      });
    }
    return { inputs, failures };
  },

  async diff(_run, _id, olds, news) {
    return diffOverlay(olds, news);
  },

  async create(run, inputs) {
    const client = run.client;
    const name = inputs.name ?? autonameOf(inputs.resourceName ?? "overlay");
    // Free a moment before the create: an overlay of this name found after a create that may
    // have reached the service is this create's.
    const before = await client.overlays.named(name);
    if (before !== undefined) {
      throw new Error(
        `name: an overlay named ${name} already exists on the account (overlay ` +
          `${before.overlay_id}); nothing was created: choose another name`,
      );
    }
    const created = await recoverLostCreate({
      create: () => client.overlays.create(inputs.clusterId, name),
      // Anything but the service's refusal (a bad cluster, a name taken meanwhile), which
      // created nothing: a lost reply, or a failed look at the list after the create.
      mayHaveCreated: (failure) =>
        !(failure instanceof GpuCloudError && failure.status !== undefined && failure.status < 500),
      // The name was free, so an overlay that has it now is this create's.
      findCreated: async () => {
        const appeared = await client.overlays.named(name).catch(() => undefined);
        return appeared?.cluster_id === inputs.clusterId ? appeared : undefined;
      },
      notFound: (lost) =>
        new Error(
          `${lost.message}. No overlay named ${name} is on cluster ${inputs.clusterId} now: ` +
            "nothing is left to clean up; run `pulumi up` again.",
        ),
    });
    return { id: String(created.overlay_id), outs: outputsOf({ ...inputs, name }, created) };
  },

  async read(run, id, props) {
    if (!props) return importedOverlay(run, id);
    const found = (await run.client.overlays.list()).find(
      (overlay) => overlay.overlay_id === props.overlayId,
    );
    if (found === undefined) return {};
    const outs = outputsOf(props, found);
    return readResult(id, props, outs, inputsOf(outs));
  },

  /** Members leave the overlay and keep running (the service's delete); gone already is done. */
  async delete(run, _id, props) {
    await deleteUnlessGone(run.client.overlays.delete(props.overlayId));
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "overlay");

/** Overlay, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "Overlay",
  implementation,
  inputs: overlayInputsSchema,
  outputs: overlayOutputsSchema,
  description:
    "An overlay network on a physical cluster: a private LAN (all ports, e.g. for NCCL) for " +
    "the instances that join it (Instance overlay: the overlay's name). name defaults to the " +
    "resource's name with a random suffix. Any change replaces it; deleting it takes its " +
    "members off it, and they keep running.",
  hidden: overlayResourceInputs.hidden,
  // As the Overlay class does: a name left out is made from the resource's name.
  fill: (news, { name }) => ({ ...news, resourceName: news["resourceName"] ?? name }),
  packageTypes: ["OverlayArgs"],
  tests: {
    records: "overlays",
    isOnAccount: hasRecord("overlays", "overlayId"),
    identify: (record) => record["name"],
  },
  badInputs: () => [
    {
      what: "a clusterId of the wrong type",
      args: { clusterId: "7" },
      cases: [
        {
          field: "clusterId",
          says: /clusterId: expected a number, received a string holding a number/,
        },
      ],
    },
    {
      what: "a cluster the market does not have",
      args: { clusterId: 999 },
      cases: [
        {
          field: "clusterId",
          says: /clusterId: no physical cluster 999 in the market: no offer names it/,
        },
      ],
    },
    {
      what: "a name with capitals and spaces",
      args: { clusterId: 7, name: "Train Net" },
      cases: [{ field: "name", says: /name: may hold only lowercase letters, digits and - / }],
    },
  ],
  recorded: () => [
    {
      olds: {
        clusterId: 7,
        name: "train-net",
        overlayId: 1,
        subnet: "10.100.0.0/24",
        instanceIds: [],
      },
    },
  ],
});

/** `pulumi import` by the overlay's id, or by its name. */
async function importedOverlay(
  run: Run,
  id: string,
): Promise<{ id?: string; props?: OverlayOutputs; inputs?: OverlayInputs }> {
  const wanted = id.trim();
  const overlays = await run.client.overlays.list();
  const found =
    (/^\d+$/.test(wanted)
      ? overlays.find((overlay) => overlay.overlay_id === Number(wanted))
      : undefined) ?? overlays.find((overlay) => overlay.name === wanted);
  if (found === undefined) return {};
  const inputs: OverlayInputs = { clusterId: found.cluster_id, name: found.name };
  return { id: String(found.overlay_id), props: outputsOf(inputs, found), inputs };
}

// ---- The resource -------------------------------------------------------------------------

export interface OverlayArgs {
  /** The physical cluster: an offer's `clusterId`. Changing it replaces the overlay. */
  clusterId: pulumi.Input<number>;
  /**
   * Unique on the account: lowercase letters, digits and `-`, at most 64 characters. Default:
   * the resource's name with a random suffix. Changing it replaces the overlay.
   */
  name?: pulumi.Input<string>;
}

/**
 * An overlay network on a physical cluster: a private LAN (all ports) for the instances that
 * join it (Instance `overlay: overlay.name`), e.g. for NCCL. Deleting it takes its members off
 * it; they keep running.
 */
export class Overlay extends DynamicResource {
  declare readonly clusterId: pulumi.Output<number>;
  declare readonly name: pulumi.Output<string>;
  declare readonly overlayId: pulumi.Output<number>;
  /** E.g. `10.100.0.0/24`: the members' overlay addresses are in it. */
  declare readonly subnet: pulumi.Output<string | null>;
  /** The members, as the service showed them at create or the last refresh. */
  declare readonly instanceIds: pulumi.Output<number[]>;

  constructor(name: string, args: OverlayArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/overlay"),
      name,
      // Every output is named here, or the resource would not expose it.
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        clusterId: args.clusterId,
        name: args.name,
        resourceName: name,
        overlayId: undefined,
        subnet: undefined,
        instanceIds: undefined,
      },
      opts,
      "Overlay",
    );
  }
}
