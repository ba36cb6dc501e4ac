// Multi-node training as one resource: four nodes in one physical cluster, on one overlay
// network (a private LAN on every port, for NCCL), each mounting one shared network volume.
// Every node has NODE_RANK, WORLD_SIZE and MASTER_ADDR (rank 0's overlay address) in its
// environment; create waits until all four run, or takes the group apart.
import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "pulumi-gpucloud";

const config = new pulumi.Config();

const trainers = new gpucloud.NodeGroup("trainers", {
  nodeCount: config.getNumber("nodeCount") ?? 4,
  // The cheapest physical cluster with an offer for every node is chosen.
  offerQuery: { gpuName: config.get("gpuName") ?? "H100 SXM" },
  maxDollarsPerHour: 4, // each node
  image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
  diskGb: 100,
  networkVolume: { sizeGb: 500, mountPath: "/data" },
  onstart:
    "torchrun --nnodes=$WORLD_SIZE --node-rank=$NODE_RANK --master-addr=$MASTER_ADDR " +
    "--master-port=29500 --nproc-per-node=gpu /data/train.py",
});

export const clusterId = trainers.clusterId;
export const masterAddr = trainers.masterAddr;
export const networkVolumeId = trainers.networkVolumeId;
export const nodes = trainers.nodes; // rank, instanceId, sshHost, sshPort, localIp, actualStatus
