import { encodeOnstart, onstartLimitChars } from "../../onstart";
import { configurationFailures, providerClient, reportProgress } from "../../provider-runtime";
import { readResult } from "../../read-result";
import type { DynamicProvider } from "../../shim";
import { checkInputs, fieldFailure } from "../../validation";
import { rememberRecorded, resourceNameOf } from "../instance/identity";
import { handOver } from "../instance/lifecycle";
import { releaseOffers } from "../instance/offer-choice";
import { sshKeysBeforeRenting, updateSshKeys } from "../instance/ssh-keys";
import { addressIn } from "./addresses";
import { createGroup, type GroupBuild, rentRanks } from "./create";
import { diffNodeGroup, ranksToRent } from "./diff";
import {
  type GroupNode,
  nodeGroupInputsSchema,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./inputs";
import { nodeOwnerOf } from "./naming";
import { destroyNodes, tearDown } from "./teardown";

export function inputsOf(props: NodeGroupOutputs): NodeGroupInputs {
  return Object.fromEntries(
    Object.keys(nodeGroupInputsSchema.shape)
      .filter((field) => field in props)
      .map((field) => [field, props[field as keyof NodeGroupInputs]]),
  ) as NodeGroupInputs;
}

/** Each node as the service shows it now; a node it no longer shows is `gone`. */
async function refreshedNodes(props: NodeGroupOutputs): Promise<GroupNode[]> {
  const client = providerClient();
  return Promise.all(
    props.nodes.map(async (node) => {
      const shown = await client.instances.showAmongMany(node.instanceId);
      if (shown === undefined)
        return { ...node, actualStatus: "gone", sshHost: null, sshPort: null };
      return {
        ...node,
        actualStatus: shown.actual_status ?? null,
        sshHost: shown.ssh_host ?? null,
        sshPort: shown.ssh_port ?? null,
        localIp: addressIn(shown.local_ipaddrs, props.subnet) ?? node.localIp,
      };
    }),
  );
}

/**
 * The ranks at and above `nodeCount` taken away, all at once: destroyed and confirmed gone.
 * Fails naming the nodes that could not be.
 */
async function removeRanks(props: NodeGroupOutputs, nodeCount: number): Promise<GroupNode[]> {
  const removed = props.nodes.filter((node) => node.rank >= nodeCount);
  if (removed.length === 0) return props.nodes;
  const left = await destroyNodes(
    providerClient(),
    removed.map((node) => node.instanceId),
    props.pollIntervalSeconds,
  );
  if (left.length > 0) {
    throw new Error(
      `instances ${left.join(", ")} (ranks above ${nodeCount - 1}) could not be confirmed ` +
        `destroyed; the group keeps them until the next \`pulumi up\``,
    );
  }
  return props.nodes.filter((node) => node.rank < nodeCount);
}

/**
 * Ranks missing below `nodeCount` (new ones, or nodes refresh found gone) rented in the group's
 * cluster, on its overlay, with rank 0's address: as a create rents them, and handed over when
 * all run. When one cannot be, the ranks this update rented are destroyed and it fails, leaving
 * the group as it was.
 */
async function addRanks(
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  kept: GroupNode[],
): Promise<GroupNode[]> {
  const ranks = ranksToRent({ ...olds, nodes: kept }, news.nodeCount);
  if (ranks.length === 0) return kept;
  const client = providerClient();
  const name = resourceNameOf(news.owner ?? olds.owner);
  const overlay = (await client.overlays.list()).find((o) => o.overlay_id === olds.overlayId);
  if (overlay === undefined || olds.masterAddr === null) {
    throw new Error(
      `${name}: the group's overlay ${olds.overlayName} is gone; the group cannot grow. Run ` +
        `\`pulumi up --replace\` on it.`,
    );
  }
  const claimed = new Set<number>();
  const build: GroupBuild = {
    client,
    inputs: {
      ...news,
      owner: news.owner ?? olds.owner,
      stackToken: news.stackToken ?? olds.stackToken,
    },
    name,
    progress: (message) => {
      reportProgress(`${name}: ${message}`);
    },
    clusterId: olds.clusterId,
    overlay,
    networkVolumeId: olds.networkVolumeId,
    unrecorded: new Set(),
    claimed,
    nodes: new Map(),
    sshKeys: await sshKeysBeforeRenting(client, news),
    deadlineMs: Date.now() + news.createTimeoutSeconds * 1000,
  };
  try {
    build.progress(`renting ranks ${ranks.join(", ")} in cluster ${olds.clusterId}`);
    await rentRanks(build, ranks, olds.masterAddr);
    await Promise.all(
      [...build.nodes.values()].map((node) => handOver(client, node.instanceId, build.inputs)),
    );
    for (const node of build.nodes.values()) {
      const owner = build.inputs.owner;
      rememberRecorded(
        owner === undefined ? undefined : nodeOwnerOf(owner, node.rank),
        node.instanceId,
      );
    }
  } catch (error) {
    const rented = [
      ...new Set([...build.unrecorded, ...[...build.nodes.values()].map((n) => n.instanceId)]),
    ];
    const left = await destroyNodes(client, rented, news.pollIntervalSeconds);
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${name}: ranks ${ranks.join(", ")} could not all be added (${why}); ` +
        (left.length === 0
          ? `the instances this update rented were destroyed, and the group is as it was.`
          : `instances ${left.join(", ")} could not be confirmed destroyed: destroy them by hand.`),
    );
  } finally {
    releaseOffers(claimed);
  }
  const added = [...build.nodes.values()];
  return [...kept.filter((node) => !ranks.includes(node.rank)), ...added].sort(
    (a, b) => a.rank - b.rank,
  );
}

export const provider: DynamicProvider<NodeGroupInputs, NodeGroupOutputs> = {
  async check(_olds, news) {
    const setup = await configurationFailures();
    const checked = checkInputs(nodeGroupInputsSchema, news);
    const { inputs } = checked;
    const failures = [...setup, ...checked.failures];
    if (news["image"] === undefined) {
      failures.push(
        fieldFailure("image", "required: every node's container image, e.g. pytorch/pytorch"),
      );
    }
    if (news["diskGb"] === undefined) {
      failures.push(fieldFailure("diskGb", "required: every node's disk size in GB, at least 8"));
    }
    if (inputs.runtype === "vm") {
      failures.push(
        fieldFailure("runtype", "a VM cannot join an overlay network; use ssh, jupyter or args"),
      );
    }
    for (const name of ["NODE_RANK", "WORLD_SIZE", "MASTER_ADDR"]) {
      if (inputs.env?.[name] !== undefined) {
        failures.push(
          fieldFailure(`env.${name}`, `the group sets ${name} for each node; leave it out`),
        );
      }
    }
    if (typeof inputs.onstart === "string") {
      const encoded = encodeOnstart(inputs.onstart);
      if (!encoded.ok) {
        failures.push(
          fieldFailure(
            "onstart",
            `${encoded.originalChars} characters, ${encoded.encodedChars} even when ` +
              `gzipped and base64-encoded; the service takes at most ${onstartLimitChars}`,
          ),
        );
      }
    }
    return { inputs, failures };
  },

  async diff(_id, olds, news) {
    for (const node of olds.nodes) {
      const owner = olds.owner;
      rememberRecorded(
        owner === undefined ? undefined : nodeOwnerOf(owner, node.rank),
        node.instanceId,
      );
    }
    return diffNodeGroup(olds, news);
  },

  async create(inputs) {
    return createGroup(inputs);
  },

  async read(id, props) {
    if (!props) {
      throw new Error(
        "a NodeGroup cannot be imported: declare its nodes as Instances, or create the group anew",
      );
    }
    const client = providerClient();
    const overlay = (await client.overlays.list()).find((o) => o.overlay_id === props.overlayId);
    const nodes = await refreshedNodes(props);
    // Gone altogether (deleted outside Pulumi): the engine drops it from the state.
    if (overlay === undefined && nodes.every((node) => node.actualStatus === "gone")) return {};
    const outs: NodeGroupOutputs = { ...props, nodes };
    return readResult(id, props, outs, inputsOf(outs));
  },

  async update(_id, olds, news) {
    const client = providerClient();
    const kept = await removeRanks(olds, news.nodeCount);
    const nodes = await addRanks(olds, news, kept);
    const owner = news.owner ?? olds.owner;
    for (const node of kept) {
      if ((news.label ?? "") !== (olds.label ?? "")) {
        await client.instances.relabel(node.instanceId, news.label ?? "");
      }
      await updateSshKeys(client, node.instanceId, olds.sshKeyIds, news);
    }
    const outs: NodeGroupOutputs = { ...olds, ...news, owner, nodes };
    if (news.label === undefined) delete outs.label;
    if (news.sshKeyIds === undefined) delete outs.sshKeyIds;
    if (news.maxDollarsPerHour === undefined) delete outs.maxDollarsPerHour;
    return { outs };
  },

  async delete(_id, props) {
    const left = await tearDown(
      providerClient(),
      {
        nodeIds: props.nodes.map((node) => node.instanceId),
        overlayIds: [props.overlayId],
        networkVolumeIds: props.networkVolumeId === null ? [] : [props.networkVolumeId],
      },
      props.pollIntervalSeconds,
    );
    if (left.length > 0) {
      throw new Error(
        `the group could not be removed in full (${left.join("; ")}); it stays in the stack ` +
          `until the next \`pulumi destroy\` removes the rest`,
      );
    }
  },
};
