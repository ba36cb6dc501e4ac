// A monitoring instance that may watch the account's instances and nothing else: the stack
// registers an SSH key, creates an API key scoped to instance_read only, and hands that key to
// the instance as a secret environment variable. `pulumi destroy` revokes the key.
import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "pulumi-gpucloud";

const config = new pulumi.Config();

const laptop = new gpucloud.SshKey("laptop", {
  publicKey: config.require("sshPublicKey"), // the one line of ~/.ssh/id_ed25519.pub
});

// Reads instances (GET /api/v0/instances/…); any write with it gets 403.
const reader = new gpucloud.ApiKey("instance-reader", {
  name: "instance-reader",
  permissions: { api: { instance_read: {} } },
});

const monitor = new gpucloud.Instance("monitor", {
  askId: config.getNumber("askId") ?? 31001,
  image: "python:3.12-slim",
  diskGb: 10,
  label: "monitor",
  // reader.key is a Pulumi secret, so this env is stored encrypted and shown as [secret].
  env: {
    GPUCLOUD_API_KEY: reader.key,
    GPUCLOUD_BASE_URL: new pulumi.Config("gpucloud").require("baseUrl"),
  },
  sshKeyIds: [laptop.sshKeyId],
});

export const instanceId = monitor.instanceId;
export const sshKeyFingerprint = laptop.fingerprint;
export const readerKeyId = reader.apiKeyId;
// A secret output: `pulumi stack output readerKey --show-secrets` prints it.
export const readerKey = reader.key;
