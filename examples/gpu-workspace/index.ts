// A small GPU workspace: a data volume, two account secrets (one from secret config), a
// webhook for instance events, and a training instance that uses them (the volume mounted at
// /workspace/data).
import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "pulumi-gpucloud";

const config = new pulumi.Config();

// Asks (offers) come and go as other people rent them: find them by query, not by id. The
// trainer's query and price cap, which the volume is placed by as well.
const trainerQuery: gpucloud.InstanceOfferQuery = {
  gpuName: { in: ["RTX 4090", "RTX 3090"] },
  gpuRamGb: { gte: 24 },
  reliability: { gte: 0.95 },
};
const maxDollarsPerHour = 1;

// A local volume lives on one machine, and the instance that mounts it is rented there:
// forInstance puts it on a machine where the trainer can be rented under its cap.
const data = new gpucloud.Volume("data", {
  volumeOfferQuery: { diskSpaceGb: { gte: 100 }, reliability: { gte: 0.95 } },
  sizeGb: 50,
  forInstance: { offerQuery: trainerQuery, maxDollarsPerHour },
});

// Account secrets become environment variables of every instance of the account.
const hfToken = new gpucloud.Secret("hf-token", {
  key: "HF_TOKEN",
  value: config.requireSecret("hfToken"),
});
const wandbProject = new gpucloud.Secret("wandb-project", {
  key: "WANDB_PROJECT",
  value: "gpu-workspace",
});

const alerts = new gpucloud.Webhook("alerts", {
  url: config.get("webhookUrl") ?? "https://hooks.example.com/gpucloud",
  eventTypes: ["client:low_credit", "client:outbid"],
  name: "workspace alerts",
});

const onstart = `#!/bin/bash
set -euo pipefail
echo "workspace starting on $(hostname)"
# HF_TOKEN and WANDB_PROJECT come from the account's secrets.
test -n "\${HF_TOKEN:-}" || { echo "HF_TOKEN is not set" >&2; exit 1; }
test -d /workspace/data || { echo "the data volume is not mounted" >&2; exit 1; }
pip install --quiet --upgrade huggingface_hub wandb
huggingface-cli download "\${MODEL_ID}" --local-dir /workspace/model
echo "ready: model \${MODEL_ID}, volume \${DATA_VOLUME}, project \${WANDB_PROJECT}"
`;

const trainer = new gpucloud.Instance("trainer", {
  // The cheapest matching offer on the volume's machine; another one is rented when one ends
  // in a dead end.
  offerQuery: trainerQuery,
  maxDollarsPerHour,
  volume: { volumeId: data.volumeId, mountPath: "/workspace/data" },
  image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
  diskGb: 40,
  label: "gpu-workspace",
  onstart,
  env: {
    MODEL_ID: "meta-llama/Llama-3.1-8B",
    DATA_VOLUME: data.volumeName,
    // Names of the account secrets the script relies on.
    REQUIRED_SECRETS: pulumi.interpolate`${hfToken.key},${wandbProject.key}`,
  },
  pollIntervalSeconds: config.getNumber("pollIntervalSeconds") ?? 3,
});

export const volumeName = data.volumeName;
export const webhookId = alerts.webhookId;
export const instanceId = trainer.instanceId;
export const sshHost = trainer.sshHost;
export const sshPort = trainer.sshPort;
export const publicIp = trainer.publicIp;
export const gpuRamMb = trainer.gpuRamMb;
