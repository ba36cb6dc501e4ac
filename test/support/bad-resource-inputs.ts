import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { GpuCloudClient } from "../../provider/client";

/**
 * Bad input as a new user writes it, one resource per group with several bad fields: each field
 * must fail `check` with one line naming it and saying what is allowed, never echoing a value.
 * test/contract/bad-input.test.ts checks every group against each resource's check;
 * test/e2e/bad-input.test.ts runs a few through the engine, where printing matters.
 */
export interface BadInputCase {
  /** The field, as the message names it. */
  readonly field: string;
  /** What the line must say (the field first, then what was wrong and what is allowed). */
  readonly says: RegExp;
}

export interface BadResourceInput {
  readonly what: string;
  /** The resource type, as `gpucloud.<type>`. */
  readonly type: string;
  /** The arguments, as a program passes them. */
  readonly args: Record<string, unknown>;
  readonly cases: readonly BadInputCase[];
  /** Values that must not appear in what is printed. */
  readonly secrets?: readonly string[];
  /** What the account holds first, made outside Pulumi. */
  readonly before?: (client: GpuCloudClient) => Promise<void>;
}

const validInstance = { askId: 31001, image: "pytorch/pytorch", diskGb: 20 };
const privateKey =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----";
// 200 KB that gzip cannot shrink: an onstart script the service cannot take.
const hugeOnstart = randomBytes(150_000).toString("base64");
const envSecret = "env-secret-value-4711";
// A private key as `ssh-keygen` or Node.js writes it in PEM (PKCS #8).
const pemPrivateKey = String(
  generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }),
);
const plainSecret = "a b$c";

export const badResourceInputs: readonly BadResourceInput[] = [
  {
    what: "Secret: wrong types and characters",
    type: "Secret",
    args: { key: 123, value: plainSecret },
    cases: [
      { field: "key", says: /key: expected a string, received 123/ },
      {
        field: "value",
        says: /value: may hold only letters, digits, _, - and \. \(received a string of 5 characters\)/,
      },
    ],
    secrets: [plainSecret],
  },
  {
    what: "Secret: limits",
    type: "Secret",
    args: { key: "1ABC", value: "v".repeat(3000) },
    cases: [
      { field: "key", says: /key: may hold only letters, digits and _, and must not start/ },
      { field: "value", says: /value: must be at most 2048 characters; got 3000/ },
    ],
    secrets: ["v".repeat(3000)],
  },
  {
    what: "Secret: missing fields",
    type: "Secret",
    args: {},
    cases: [
      { field: "key", says: /key: required: the variable's name/ },
      { field: "value", says: /value: required: a string of letters, digits, _, - and \./ },
    ],
  },
  {
    what: "Secret: empty key, value of another type",
    type: "Secret",
    args: { key: "K".repeat(200), value: true },
    cases: [
      { field: "key", says: /key: must be at most 128 characters; got 200 characters/ },
      { field: "value", says: /value: expected a string, received true/ },
    ],
  },
  {
    what: "Volume: wrong types",
    type: "Volume",
    args: { askId: "abc", sizeGb: 1.5 },
    cases: [
      { field: "askId", says: /askId: expected a number, received a string of 3 characters/ },
      { field: "sizeGb", says: /sizeGb: expected a whole number, received 1\.5/ },
    ],
  },
  {
    what: "Volume: a number given as a string, a negative ask",
    type: "Volume",
    args: { askId: -3, sizeGb: "40" },
    cases: [
      { field: "askId", says: /askId: must be positive; got -3/ },
      { field: "sizeGb", says: /sizeGb: expected a number, received a string holding a number/ },
    ],
  },
  {
    what: "Volume: missing ask, zero size",
    type: "Volume",
    args: { sizeGb: 0 },
    cases: [
      { field: "askId", says: /askId: required: the id of a volume ask/ },
      { field: "sizeGb", says: /sizeGb: must be positive; got 0/ },
    ],
  },
  {
    what: "Volume: forInstance with an unknown query field",
    type: "Volume",
    args: { askId: 21001, forInstance: { offerQuery: { gpuRam: 24 } } },
    cases: [
      {
        field: "forInstance.offerQuery",
        says: /^forInstance\.offerQuery: gpuRam: not a field of instance offer queries; did you mean gpuRamGb\? the fields are gpuName, /,
      },
    ],
  },
  {
    what: "Volume: forInstance without its query",
    type: "Volume",
    args: {
      volumeOfferQuery: { reliability: { gte: 0.9 } },
      forInstance: { maxDollarsPerHour: 2 },
    },
    cases: [
      {
        field: "forInstance.offerQuery",
        says: /^forInstance\.offerQuery: must be a query object .* \(received nothing\)$/,
      },
    ],
  },
  {
    what: "Volume: a misspelled cap for its instance, a misspelled size",
    type: "Volume",
    args: {
      askId: 21001,
      sizeGB: 40,
      forInstance: { offerQuery: { gpuName: "RTX 4090" }, maxDollarPerHour: 2 },
    },
    cases: [
      { field: "sizeGB", says: /^sizeGB: not an input of Volume; did you mean sizeGb\?$/ },
      {
        field: "forInstance.maxDollarPerHour",
        says: /^forInstance\.maxDollarPerHour: not a field of forInstance; did you mean maxDollarsPerHour\?$/,
      },
    ],
  },
  {
    what: "Volume: more than the ask offers",
    type: "Volume",
    args: { askId: 21001, sizeGb: 5000 },
    cases: [
      {
        field: "sizeGb",
        says: /sizeGb: 5000 GB is more than ask 21001 offers \(100 GB disk_space\)/,
      },
    ],
  },
  {
    what: "Webhook: wrong scheme and types",
    type: "Webhook",
    args: {
      url: "http://hooks.example.com/x",
      eventTypes: "client:low_credit",
      name: "two\nlines",
      secretRotation: 5,
    },
    cases: [
      { field: "url", says: /url: must be an https:\/\/ URL/ },
      { field: "eventTypes", says: /eventTypes: expected a list, received a string/ },
      { field: "name", says: /name: must not contain control characters/ },
      { field: "secretRotation", says: /secretRotation: expected a string, received 5/ },
    ],
  },
  {
    what: "Webhook: limits",
    type: "Webhook",
    args: {
      url: `https://hooks.example.com/${"p".repeat(3000)}`,
      eventTypes: [],
      name: "n".repeat(200),
    },
    cases: [
      { field: "url", says: /url: must be at most 2048 characters; got 3026 characters/ },
      { field: "eventTypes", says: /eventTypes: needs at least one event type/ },
      { field: "name", says: /name: must be at most 120 characters; got 200 characters/ },
    ],
  },
  {
    what: "Webhook: missing url, malformed event key",
    type: "Webhook",
    args: { eventTypes: ["low credit"] },
    cases: [
      { field: "url", says: /url: required: url must be an https:\/\/ URL/ },
      {
        field: "eventTypes.0",
        says: /eventTypes.0: each event type is a notification key <context>:<slug>/,
      },
    ],
  },
  {
    what: "Webhook: an event key the service does not have",
    type: "Webhook",
    args: {
      url: "https://hooks.example.com/x",
      eventTypes: ["client:no_such_event"],
    },
    cases: [
      {
        field: "eventTypes",
        says: /eventTypes: client:no_such_event is not a notification type of this service; valid keys: client:/,
      },
    ],
  },
  {
    what: "SshKey: a private key",
    type: "SshKey",
    args: { publicKey: privateKey },
    cases: [{ field: "publicKey", says: /publicKey: holds a private key/ }],
    secrets: privateKey.split("\n").filter((line) => line.length > 40),
  },
  {
    what: "SshKey: a PEM private key",
    type: "SshKey",
    args: { publicKey: pemPrivateKey },
    cases: [
      {
        field: "publicKey",
        says: /publicKey: holds a private key; give the public key/,
      },
    ],
    secrets: pemPrivateKey.split("\n").filter((line) => line.length > 20),
  },
  {
    what: "SshKey: mangled key data",
    type: "SshKey",
    args: { publicKey: "ssh-ed25519 not!base64 me@host" },
    cases: [
      {
        field: "publicKey",
        says: /publicKey: publicKey's key data is not a base64 ssh-ed25519 public key/,
      },
    ],
  },
  {
    what: "SshKey: an unknown key type",
    type: "SshKey",
    args: { publicKey: "ssh-foo AAAA me@host" },
    cases: [{ field: "publicKey", says: /publicKey: .*type one of ssh-ed25519, ssh-rsa/ }],
  },
  {
    what: "SshKey: a number",
    type: "SshKey",
    args: { publicKey: 42 },
    cases: [{ field: "publicKey", says: /publicKey: expected a string, received 42/ }],
  },
  {
    what: "ApiKey: wrong type, unknown category",
    type: "ApiKey",
    args: { name: 5, permissions: { api: { instance_reed: {} } } },
    cases: [
      { field: "name", says: /name: expected a string, received 5/ },
      {
        field: "permissions",
        says: /permissions.api: instance_reed: not a permission category; the categories are misc, user_read/,
      },
    ],
  },
  {
    what: "ApiKey: empty name, no category",
    type: "ApiKey",
    args: { name: " ", permissions: { api: {} } },
    cases: [
      { field: "name", says: /name: must not be empty/ },
      { field: "permissions", says: /permissions.api: must grant at least one category/ },
    ],
  },
  {
    what: "ApiKey: control characters, missing scope",
    type: "ApiKey",
    args: { name: "ci\tkey" },
    cases: [
      { field: "name", says: /name: must not contain control characters/ },
      { field: "permissions", says: /permissions: required: permissions must be \{ api:/ },
    ],
  },
  {
    what: "ApiKey: extra top-level key",
    type: "ApiKey",
    args: { name: "ci", permissions: { api: { misc: {} }, read: true } },
    cases: [{ field: "permissions", says: /permissions: only api is allowed at the top level/ }],
  },
  {
    what: "Instance: every field wrong at once",
    type: "Instance",
    args: {
      askId: "abc",
      image: 5,
      diskGb: "40",
      onstart: hugeOnstart,
      env: { "A B": envSecret },
      label: "l".repeat(10_000),
      runtype: "docker",
      price: -1,
      createTimeoutSeconds: 0,
      maxAttempts: 11,
      state: "paused",
      pollIntervalSeconds: 0,
      sshKeyIds: "5",
      maxLifetime: "forever",
    },
    cases: [
      { field: "askId", says: /askId: expected a number, received a string of 3 characters/ },
      { field: "image", says: /image: expected a string, received 5/ },
      { field: "diskGb", says: /diskGb: expected a number, received a string holding a number/ },
      {
        field: "onstart",
        says: /onstart: 200000 characters, \d+ even when gzipped and base64-encoded; the service takes at most 4048/,
      },
      {
        field: "env",
        says: /env: the name "A B" is not allowed: env names hold letters, digits and _/,
      },
      { field: "label", says: /label: must be at most 1024 characters; got 10000/ },
      { field: "runtype", says: /runtype: must be ssh, jupyter, args or vm/ },
      {
        field: "price",
        says: /price: \(the bid, \$\/hour\) must be at least 0.001; got -1/,
      },
      {
        field: "createTimeoutSeconds",
        says: /createTimeoutSeconds: must be positive; got 0/,
      },
      { field: "maxAttempts", says: /maxAttempts: must be at most 10; got 11/ },
      { field: "state", says: /state: must be running or stopped/ },
      {
        field: "pollIntervalSeconds",
        says: /pollIntervalSeconds: must be at least 0.05; got 0/,
      },
      { field: "sshKeyIds", says: /sshKeyIds: expected a list, received a string/ },
      {
        field: "maxLifetime",
        says: /maxLifetime: must be a whole number followed by s, m, h or d, e\.g\. "30s", "90m", "8h" or "3d" \(received a string of 7 characters\)/,
      },
    ],
    secrets: [hugeOnstart.slice(0, 64), hugeOnstart.slice(-64), envSecret, "forever"],
  },
  {
    what: "Instance: misspelled inputs",
    type: "Instance",
    args: {
      ...validInstance,
      maxLifeTime: "8h",
      idleShutdwon: "thirty-minutes-idle",
      readiness: { onstartLine: "ready", intervalSecs: 5 },
      volume: { volumeId: 7, mountpath: "/data" },
    },
    cases: [
      {
        field: "maxLifeTime",
        says: /maxLifeTime: not an input of Instance; did you mean maxLifetime\?/,
      },
      {
        field: "idleShutdwon",
        says: /idleShutdwon: not an input of Instance; did you mean idleShutdown\?/,
      },
      {
        field: "readiness.intervalSecs",
        says: /readiness\.intervalSecs: not a field of readiness; did you mean intervalSeconds\?/,
      },
      {
        field: "volume.mountpath",
        says: /volume\.mountpath: not a field of volume; did you mean mountPath\?/,
      },
    ],
    secrets: ["thirty-minutes-idle"],
  },
  {
    what: "Instance: every field of a nested input wrong at once",
    type: "Instance",
    args: {
      ...validInstance,
      readiness: { http: { port: 0, path: "health", expectStatus: 99 }, intervalSeconds: 0 },
    },
    cases: [
      { field: "readiness.http.port", says: /^readiness\.http\.port: must be 1-65535; got 0$/ },
      { field: "readiness.http.path", says: /^readiness\.http\.path: must start with \// },
      {
        field: "readiness.http.expectStatus",
        says: /^readiness\.http\.expectStatus: must be 100-599; got 99$/,
      },
      {
        field: "readiness.intervalSeconds",
        says: /^readiness\.intervalSeconds: must be at least 0\.05; got 0$/,
      },
    ],
  },
  {
    what: "Instance: idleShutdown's durations and action",
    type: "Instance",
    args: { ...validInstance, idleShutdown: { after: "idle-for-a-while", action: "hibernate" } },
    cases: [
      {
        field: "idleShutdown.after",
        says: /^idleShutdown\.after: must be a whole number followed by s, m, h or d, e\.g\. "90s", "30m" or "2h" \(received a string of 16 characters\)$/,
      },
      { field: "idleShutdown.action", says: /^idleShutdown\.action: must be destroy or stop/ },
    ],
    secrets: ["idle-for-a-while", "hibernate"],
  },
  {
    what: "Instance: idleShutdown beyond maxLifetime, and where no onstart runs",
    type: "Instance",
    args: { ...validInstance, runtype: "args", maxLifetime: "1h", idleShutdown: { after: "90m" } },
    cases: [
      {
        field: "idleShutdown.after",
        says: /^idleShutdown\.after: is longer than maxLifetime, which ends the instance first; give a shorter period, or a longer maxLifetime$/,
      },
      {
        field: "idleShutdown",
        says: /^idleShutdown: is enforced by a watchdog in the onstart, which a runtype args launch does not run; use runtype ssh or jupyter, or leave idleShutdown out$/,
      },
    ],
  },
  {
    what: "NodeGroup: idleShutdown beyond maxLifetime",
    type: "NodeGroup",
    args: {
      nodeCount: 2,
      offerQuery: { gpuName: "H100 SXM" },
      image: "pytorch/pytorch",
      diskGb: 40,
      maxLifetime: "30m",
      idleShutdown: { after: "2h", action: "stop" },
    },
    cases: [
      { field: "idleShutdown.after", says: /^idleShutdown\.after: is longer than maxLifetime/ },
    ],
  },
  {
    what: "NodeGroup: misspelled inputs",
    type: "NodeGroup",
    args: {
      nodeCount: 2,
      offerQuery: { gpuName: "H100 SXM" },
      image: "pytorch/pytorch",
      diskGb: 40,
      maxLifeTime: "8h",
      networkVolume: { sizeGb: 100, mountpath: "/data" },
    },
    cases: [
      {
        field: "maxLifeTime",
        says: /^maxLifeTime: not an input of NodeGroup; did you mean maxLifetime\?$/,
      },
      {
        field: "networkVolume.mountpath",
        says: /^networkVolume\.mountpath: not a field of networkVolume; did you mean mountPath\?$/,
      },
    ],
  },
  {
    what: "Instance: readiness and ports",
    type: "Instance",
    args: { ...validInstance, exposePorts: [0], readiness: { http: { port: 0, path: "/health" } } },
    cases: [
      { field: "exposePorts", says: /exposePorts\.0: ports are 1-65535; got 0/ },
      {
        field: "readiness.http.port",
        says: /readiness\.http\.port: must be 1-65535; got 0/,
      },
    ],
  },
  {
    what: "Instance: readiness path and check",
    type: "Instance",
    args: {
      ...validInstance,
      exposePorts: ["53/sctp"],
      readiness: { http: { port: 8000, path: "health-secret-path" } },
    },
    cases: [
      {
        field: "exposePorts",
        says: /exposePorts\.0: a port string is "<port>\/udp" or "<port>\/tcp"/,
      },
      {
        field: "readiness.http.path",
        says: /readiness\.http\.path: must start with \/, e\.g\. \/health/,
      },
    ],
    secrets: ["health-secret-path"],
  },
  {
    what: "Instance: readiness with two checks",
    type: "Instance",
    args: { ...validInstance, readiness: { tcp: { port: 22 }, onstartLine: "ready" } },
    cases: [
      {
        field: "readiness",
        says: /readiness: takes exactly one check: http, tcp or onstartLine/,
      },
    ],
  },
  {
    what: "Instance: more fields wrong",
    type: "Instance",
    args: {
      askIds: [],
      image: "  ",
      diskGb: 4,
      env: { TOKEN: 5 },
      maxAttempts: 2.5,
      sshKeyIds: [-1],
      runtype: 5,
      state: true,
      pollIntervalSeconds: 100,
      createTimeoutSeconds: "600",
      price: "0.5",
    },
    cases: [
      { field: "askIds", says: /askIds: must list at least one ask/ },
      { field: "image", says: /image: must not be empty/ },
      { field: "diskGb", says: /diskGb: must be at least 8 \(GB\); got 4/ },
      { field: "env.TOKEN", says: /env.TOKEN: expected a string, received 5/ },
      { field: "maxAttempts", says: /maxAttempts: expected a whole number, received 2.5/ },
      { field: "sshKeyIds.0", says: /sshKeyIds.0: an SSH key id is positive; got -1/ },
      { field: "runtype", says: /runtype: must be ssh, jupyter, args or vm/ },
      { field: "state", says: /state: must be running or stopped/ },
      {
        field: "pollIntervalSeconds",
        says: /pollIntervalSeconds: must be at most 60; got 100/,
      },
      {
        field: "createTimeoutSeconds",
        says: /createTimeoutSeconds: expected a number, received a string holding a number/,
      },
      { field: "price", says: /price: expected a number, received a string holding a number/ },
    ],
  },
  {
    what: "Instance: more disk than an ask offers",
    type: "Instance",
    args: { askIds: [31001, 31002], image: "x", diskGb: 201 },
    cases: [
      {
        field: "diskGb",
        says: /diskGb: 201 GB is more than ask 31001 offers \(200 GB disk_space\)/,
      },
    ],
  },
  {
    what: "Instance: both askId and askIds",
    type: "Instance",
    args: { ...validInstance, askIds: [31002] },
    cases: [{ field: "askId", says: /askId: give askId or askIds, not both/ }],
  },
  {
    what: "Instance: no ask",
    type: "Instance",
    args: { image: "x", diskGb: 20 },
    cases: [{ field: "askId", says: /askId: required: the id of an instance offer/ }],
  },
  {
    what: "Instance: a VM on an account without an SSH key",
    type: "Instance",
    args: { ...validInstance, runtype: "vm" },
    cases: [{ field: "runtype", says: /runtype: a VM needs an SSH key registered/ }],
  },
  {
    what: "Webhook: a fifth webhook",
    type: "Webhook",
    args: { url: "https://hooks.example.com/gpu", eventTypes: ["client:low_credit"] },
    cases: [
      {
        field: "url",
        says: /the account already has 4 webhooks and the service allows 4 per user/,
      },
    ],
    before: async (client) => {
      for (let n = 1; n <= 4; n += 1) {
        await client.webhooks.create({
          webhook_url: `https://outside.example.com/${String(n)}`,
          event_types: ["client:outbid"],
        });
      }
    },
  },
  {
    what: "Template: a VM, a port protocol, a spaced env value, a numeric password",
    type: "Template",
    args: {
      name: "vllm server",
      image: "vllm/vllm-openai",
      runtype: "vm",
      ports: ["8000:8000/sctp"],
      env: { HF_TOKEN: "hf_secret value" },
      dockerLogin: { repo: "ghcr.io", user: "ci", password: 424242424242 },
    },
    cases: [
      { field: "runtype", says: /runtype: must be ssh, jupyter or args/ },
      { field: "ports", says: /ports\.0: a port string is "host:container"/ },
      { field: "env", says: /env\.HF_TOKEN: env values must not contain spaces/ },
      {
        field: "dockerLogin",
        says: /dockerLogin\.password: the registry access token or password, a non-empty string/,
      },
    ],
    secrets: ["424242424242", "hf_secret"],
  },
  {
    what: "Endpoint: out-of-bounds parameters",
    type: "Endpoint",
    args: { endpointName: "e2e-llm", targetUtil: 1.5, coldWorkers: 6, maxWorkers: 4 },
    cases: [
      {
        field: "targetUtil",
        says: /targetUtil: is a fraction of capacity, more than 0 and at most 1/,
      },
      {
        field: "coldWorkers",
        says: /coldWorkers: \(6\) must be at most maxWorkers \(4\)/,
      },
    ],
  },
  {
    what: "WorkerGroup: both templates, an ordered query, negative workers, args as a list",
    type: "WorkerGroup",
    args: {
      endpointId: 1,
      templateHashId: "0123456789abcdef0123456789abcdef",
      templateId: 7,
      offerQuery: { gpuName: "RTX 4090", order: [["dollarsPerHour", "asc"]] },
      testWorkers: -1,
      launchArgs: ["--env", "TOKEN=never-echoed-value"],
    },
    cases: [
      {
        field: "templateHashId",
        says: /templateHashId: give templateHashId or templateId, not both/,
      },
      {
        field: "offerQuery",
        says: /offerQuery\.order: a worker group's query only filters offers/,
      },
      { field: "testWorkers", says: /testWorkers: is a number of workers/ },
      { field: "launchArgs", says: /launchArgs: expected a string, received a list of 2/ },
    ],
    secrets: ["never-echoed-value"],
  },
  {
    what: "Overlay: a clusterId of the wrong type",
    type: "Overlay",
    args: { clusterId: "7" },
    cases: [
      {
        field: "clusterId",
        says: /clusterId: expected a number, received a string holding a number/,
      },
    ],
  },
  {
    what: "Overlay: a cluster the market does not have",
    type: "Overlay",
    args: { clusterId: 999 },
    cases: [
      {
        field: "clusterId",
        says: /clusterId: no physical cluster 999 in the market: no offer names it/,
      },
    ],
  },
  {
    what: "Overlay: a name with capitals and spaces",
    type: "Overlay",
    args: { clusterId: 7, name: "Train Net" },
    cases: [{ field: "name", says: /name: may hold only lowercase letters, digits and - / }],
  },
  {
    what: "NetworkVolume: 0 GB",
    type: "NetworkVolume",
    args: { askId: 25001, sizeGb: 0 },
    cases: [{ field: "sizeGb", says: /sizeGb: must be positive; got 0/ }],
  },
  {
    what: "Instance: an overlay that does not exist",
    type: "Instance",
    args: { offerQuery: {}, image: "pytorch/pytorch", diskGb: 20, overlay: "no-such-net" },
    cases: [
      {
        field: "overlay",
        says: /overlay: no overlay named no-such-net on the account: declare it with a gpucloud Overlay/,
      },
    ],
  },
  {
    what: "Instance: by query, on a volume the account does not hold",
    type: "Instance",
    args: {
      offerQuery: { gpuName: "RTX 4090" },
      image: "pytorch/pytorch",
      diskGb: 20,
      volume: { volumeId: 999, mountPath: "/data" },
    },
    cases: [
      {
        field: "volume.volumeId",
        says: /^volume\.volumeId: no volume 999 \(V\.999\) on the account: give a Volume's volumeId$/,
      },
    ],
  },
  {
    what: "Instance: by ask, on a volume the account does not hold",
    type: "Instance",
    args: { ...validInstance, volume: { volumeId: 999, mountPath: "/data" } },
    cases: [{ field: "volume.volumeId", says: /^volume\.volumeId: no volume 999 \(V\.999\) on/ }],
  },
  {
    what: "Instance: an ask in another cluster than its overlay",
    type: "Instance",
    args: { askId: 31001, image: "pytorch/pytorch", diskGb: 20, overlay: "existing-net" },
    cases: [
      {
        field: "askId",
        says: /askId: ask 31001 is on machine 41207, in no cluster, but overlay existing-net is on cluster 7/,
      },
    ],
    before: async (client) => {
      await client.overlays.create(7, "existing-net");
    },
  },
];
