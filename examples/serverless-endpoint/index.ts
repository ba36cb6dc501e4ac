// A serverless endpoint serving an LLM: a template saying what each worker runs, an endpoint
// with its scaling parameters, and a worker group renting its workers from matching offers.
// Workers are GPU instances of the account, billed while they exist: `pulumi destroy` waits
// until none is left.
import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "pulumi-gpucloud";

const config = new pulumi.Config();
const model = config.get("model") ?? "Qwen/Qwen3-8B";

// What every worker runs: the image, its environment and the port the server listens on.
const template = new gpucloud.Template("vllm", {
  name: "vllm-serverless",
  image: "vllm/vllm-openai",
  tag: "v0.6.3",
  env: { MODEL_NAME: model },
  ports: [8000],
  runtype: "args",
  diskGb: 60,
  description: "vLLM OpenAI-compatible server for a serverless endpoint",
});

// The router clients send requests to, and how much capacity it keeps.
const endpoint = new gpucloud.Endpoint("llm", {
  endpointName: config.get("endpointName") ?? "qwen3-8b",
  // Tokens per second the endpoint always keeps capacity for.
  minLoad: 100,
  // 20% headroom over the anticipated load.
  targetUtil: 0.8,
  coldMult: 2,
  // Workers kept loaded but idle when there is no traffic (billed), and the most it may have.
  coldWorkers: config.getNumber("coldWorkers") ?? 1,
  maxWorkers: config.getNumber("maxWorkers") ?? 4,
});

// The workers: the template on offers matching the query (the same query form as
// Instance.offerQuery and getOffers).
const workers = new gpucloud.WorkerGroup("llm-workers", {
  endpointId: endpoint.endpointId,
  templateHashId: template.hashId,
  offerQuery: {
    gpuName: { in: ["RTX 4090", "RTX 3090"] },
    gpuRamGb: { gte: 24 },
    reliability: { gte: 0.95 },
    dollarsPerHour: { lte: 1 },
  },
  gpuRamGb: 24,
  testWorkers: 1,
});

export const templateHashId = template.hashId;
// What a client calls the endpoint with (docs/guides/serverless.md, request.py): where the route
// call goes, the endpoint's name, and its own key (a secret: `--show-secrets` prints it).
export const routeUrl = endpoint.routeUrl;
export const endpointName = endpoint.endpointName;
export const apiKey = endpoint.apiKey;
export const endpointId = endpoint.endpointId;
export const workerGroupId = workers.workerGroupId;
// The account's instances once the group exists, its workers among them (never their
// environment or any credential).
export const instances = workers.workerGroupId.apply(() =>
  gpucloud.getInstances({ actualStatus: { in: ["loading", "running"] } }).apply((found) =>
    found.map((instance) => ({
      instanceId: instance.instanceId,
      gpuName: instance.gpuName,
      dollarsPerHour: instance.dollarsPerHour,
    })),
  ),
);
