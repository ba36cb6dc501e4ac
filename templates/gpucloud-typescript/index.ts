import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "pulumi-gpucloud";

const config = new pulumi.Config();
const maxDollarsPerHour = config.requireNumber("maxDollarsPerHour");

// Offers come and go as others rent them: an instance is rented by query, the cheapest match
// under the price cap.
const offerQuery = { gpuRamGb: { gte: 24 }, reliability: { gte: 0.95 } };

// A local volume lives on one machine: forInstance places it where the instance can be rented.
const data = new gpucloud.Volume("data", {
  volumeOfferQuery: { diskSpaceGb: { gte: 100 } },
  sizeGb: 50,
  forInstance: { offerQuery, maxDollarsPerHour },
});

const gpu = new gpucloud.Instance("gpu", {
  offerQuery,
  maxDollarsPerHour,
  // Destroyed at the deadline by the instance itself, with nobody running Pulumi.
  maxLifetime: config.require("maxLifetime"),
  image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
  diskGb: 40,
  volume: { volumeId: data.volumeId, mountPath: "/workspace/data" },
  onstart: "nvidia-smi",
});

export const sshHost = gpu.sshHost;
export const sshPort = gpu.sshPort;
export const expiresAt = gpu.expiresAt;
