import { readResult } from "../../shared/read-result";
import type { ResourceImplementation } from "../../shared/resource-implementation";
import type { Run } from "../../run/run";
import { checkInputs, fieldFailure, inputFieldsOf } from "../../shared/validation";
import { addressIn } from "../../shared/addresses";
import { createGroup } from "./create";
import { diffNodeGroup, rebuildFieldsChanged } from "./diff";
import { groupRebuildNote } from "./rebuild";
import { replacementNote } from "../../renting/replacement-reasons";
import { resizeGroup } from "./resize";
import {
  type GroupNode,
  groupDollarsPerHour,
  nodeGroupInputsSchema,
  nodeGroupResourceInputs,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./inputs";
import { nodeOwnerOf } from "../../renting/group-ownership";
import { resourceNameOf } from "../../renting/identity";
import { portsShownBy } from "../../renting/ports";
import {
  configuredBaseUrl,
  expiresAtShownBy,
  lifetimeFailures,
  reportExpired,
} from "../../renting/lifetime";
import { nodeGroupPlanFailures, recordNodeGroupDiff } from "./pricing";
import { tearDown } from "./teardown";
import { groupOutbidFate } from "./bids";
import { bidInputFailures, outbidBy } from "../../renting/outbid";
import { atServicePrecision } from "../../shared/price-precision";

export function inputsOf(props: NodeGroupOutputs): NodeGroupInputs {
  return inputFieldsOf(nodeGroupInputsSchema, props);
}

/** Each node as the service shows it now; a node it no longer shows is `gone`. */
async function refreshedNodes(run: Run, props: NodeGroupOutputs): Promise<GroupNode[]> {
  const client = run.client;
  return Promise.all(
    props.nodes.map(async (node) => {
      const shown = await client.instances.showAmongMany(node.instanceId);
      if (shown === undefined)
        return {
          ...node,
          actualStatus: "gone",
          sshHost: null,
          sshPort: null,
          ports: null,
          urls: null,
          dollarsPerHour: null,
        };
      return {
        ...node,
        actualStatus: shown.actual_status ?? null,
        sshHost: shown.ssh_host ?? null,
        sshPort: shown.ssh_port ?? null,
        ...portsShownBy(shown),
        gpuName: shown.gpu_name ?? null,
        dollarsPerHour: atServicePrecision(shown.dph_total ?? null),
        // Outbid: the next up acts on it as onOutbid says (bids.ts).
        outbidByDollarsPerHour: outbidBy(shown, props.price),
        localIp: addressIn(shown.local_ipaddrs, props.subnet) ?? node.localIp,
        // The deadline the node's own watchdog counts down to, as its onstart says.
        ...(node.expiresAt === undefined
          ? {}
          : { expiresAt: expiresAtShownBy(shown) ?? node.expiresAt }),
      };
    }),
  );
}

export const implementation: ResourceImplementation<NodeGroupInputs, NodeGroupOutputs> = {
  async check(run, olds, news) {
    const setup = await run.configurationFailures();
    const checked = checkInputs(nodeGroupInputsSchema, news, nodeGroupResourceInputs);
    const { inputs } = checked;
    const failures = [...setup, ...checked.failures];
    if (inputs.runtype === "vm") {
      failures.push(
        fieldFailure("runtype", "a VM cannot join an overlay network; use ssh, jupyter or args"),
      );
    }
    if (inputs.args !== undefined && inputs.runtype !== "args") {
      failures.push(
        fieldFailure(
          "args",
          `the image's entrypoint takes arguments only with runtype "args"; set it`,
        ),
      );
    }
    for (const name of ["NODE_RANK", "WORLD_SIZE", "MASTER_ADDR"]) {
      if (inputs.env?.[name] !== undefined) {
        failures.push(
          fieldFailure(`env.${name}`, `the group sets ${name} for each node; leave it out`),
        );
      }
    }
    failures.push(...bidInputFailures(inputs));
    // Every node's onstart with maxLifetime's watchdog, which calls the configured address.
    failures.push(...lifetimeFailures(inputs, news, configuredBaseUrl(run)));
    // Its price after the change, held against the stack's cap (pricing/plan.ts).
    if (failures.length === 0) {
      failures.push(...(await nodeGroupPlanFailures(run, olds, inputs, news)));
    }
    return { inputs, failures };
  },

  async diff(run, _id, olds, news) {
    for (const node of olds.nodes) {
      const owner = olds.owner;
      run.renting.rememberRecorded(
        owner === undefined ? undefined : nodeOwnerOf(owner, node.rank),
        node.instanceId,
      );
    }
    reportExpired(run, olds, `${resourceNameOf(olds.owner)}: the group`);
    let diff = await diffNodeGroup(run, olds, news);
    // In place or replaced, said at preview with why: the engine names the fields only.
    const replaces = diff.replaces ?? [];
    const rebuilt = rebuildFieldsChanged(olds, news);
    const note =
      replaces.length > 0
        ? replacementNote("the group", replaces)
        : rebuilt.length > 0 && groupRebuildNote(olds.nodes.length, rebuilt);
    if (note) run.progress(`${resourceNameOf(olds.owner)}: ${note}`);
    // Outbid nodes: won back or rented again (an update), or left paused, said at every preview.
    const outbid = replaces.length === 0 ? await groupOutbidFate(run, olds, news) : undefined;
    if (outbid?.note) run.progress(`${resourceNameOf(olds.owner)}: ${outbid.note}`);
    if (outbid !== undefined && outbid.raise.length + outbid.replace.length > 0) {
      diff = { ...diff, changes: true };
    }
    await recordNodeGroupDiff(run, olds, news, diff, outbid);
    return diff;
  },

  async create(run, inputs) {
    return createGroup(run, inputs);
  },

  async read(run, id, props) {
    if (!props) {
      throw new Error(
        "a NodeGroup cannot be imported: declare its nodes as Instances, or create the group anew",
      );
    }
    const client = run.client;
    const overlay = (await client.overlays.list()).find((o) => o.overlay_id === props.overlayId);
    const nodes = await refreshedNodes(run, props);
    // Gone altogether (deleted outside Pulumi): the engine drops it from the state. A group
    // whose network volume remains stays, so that its data is neither forgotten nor deleted.
    const volumeLeft =
      props.networkVolumeId !== null &&
      (await client.volumes.list()).some((volume) => volume.id === props.networkVolumeId);
    if (overlay === undefined && !volumeLeft && nodes.every((n) => n.actualStatus === "gone")) {
      return {};
    }
    // Absent unless outbid, so that stacks recorded before it see no drift.
    for (const node of nodes) {
      if (node.outbidByDollarsPerHour === undefined) delete node.outbidByDollarsPerHour;
    }
    const outs: NodeGroupOutputs = { ...props, nodes, dollarsPerHour: groupDollarsPerHour(nodes) };
    return readResult(id, props, outs, inputsOf(outs));
  },

  async update(run, _id, olds, news) {
    return { outs: await resizeGroup(run, olds, news) };
  },

  async delete(run, _id, props) {
    const left = await tearDown(
      run,
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
