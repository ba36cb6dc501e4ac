// Test-only: what the tests try on an Instance (its descriptor's `badInputs` and `recorded`).
import { randomBytes } from "node:crypto";
import type { BadInput, RecordedState } from "../../shared/resource-descriptor";
import { type InstanceInputs, instanceInputsSchema, type InstanceOutputs } from "./inputs";

/** Bad input as a new user writes it. */
export function instanceBadInputs(): readonly BadInput[] {
  const validInstance = { askId: 31001, image: "pytorch/pytorch", diskGb: 20 };
  // 200 KB that gzip cannot shrink: an onstart script the service cannot take.
  const hugeOnstart = randomBytes(150_000).toString("base64");
  const envSecret = "env-secret-value-4711";
  return [
    {
      what: "every field wrong at once",
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
      what: "misspelled inputs",
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
      what: "idleShutdown's durations and action",
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
      what: "idleShutdown beyond maxLifetime, and where no onstart runs",
      args: {
        ...validInstance,
        runtype: "args",
        maxLifetime: "1h",
        idleShutdown: { after: "90m" },
      },
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
      what: "every field of a nested input wrong at once",
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
      what: "readiness and ports",
      args: {
        ...validInstance,
        exposePorts: [0],
        readiness: { http: { port: 0, path: "/health" } },
      },
      cases: [
        { field: "exposePorts", says: /exposePorts\.0: ports are 1-65535; got 0/ },
        {
          field: "readiness.http.port",
          says: /readiness\.http\.port: must be 1-65535; got 0/,
        },
      ],
    },
    {
      what: "readiness path and check",
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
      what: "readiness with two checks",
      args: { ...validInstance, readiness: { tcp: { port: 22 }, onstartLine: "ready" } },
      cases: [
        {
          field: "readiness",
          says: /readiness: takes exactly one check: http, tcp or onstartLine/,
        },
      ],
    },
    {
      what: "more fields wrong",
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
      what: "more disk than an ask offers",
      args: { askIds: [31001, 31002], image: "x", diskGb: 201 },
      cases: [
        {
          field: "diskGb",
          says: /diskGb: 201 GB is more than ask 31001 offers \(200 GB disk_space\)/,
        },
      ],
    },
    {
      what: "both askId and askIds",
      args: { ...validInstance, askIds: [31002] },
      cases: [{ field: "askId", says: /askId: give askId or askIds, not both/ }],
    },
    {
      what: "no ask",
      args: { image: "x", diskGb: 20 },
      cases: [{ field: "askId", says: /askId: required: the id of an instance offer/ }],
    },
    {
      what: "prepayDollars of a wrong kind",
      args: { ...validInstance, prepayDollars: "500" },
      cases: [
        {
          field: "prepayDollars",
          says: /prepayDollars: expected a number, received a string holding a number/,
        },
      ],
    },
    {
      what: "prepayDollars of nothing",
      args: { ...validInstance, prepayDollars: 0 },
      cases: [{ field: "prepayDollars", says: /prepayDollars: must be more than 0 dollars/ }],
    },
    {
      what: "prepayDollars on an interruptible instance",
      args: { ...validInstance, price: 0.3, prepayDollars: 50 },
      cases: [
        {
          field: "prepayDollars",
          says: /prepayDollars: a prepay makes an on-demand instance reserved; an interruptible one \(with price\) cannot be prepaid/,
        },
      ],
    },
    {
      what: "prepayDollars over the account's credit",
      args: { ...validInstance, prepayDollars: 987_654 },
      cases: [
        {
          field: "prepayDollars",
          says: /prepayDollars: more than the account's credit holds now, which the service refuses/,
        },
      ],
    },
    {
      what: "a VM on an account without an SSH key",
      args: { ...validInstance, runtype: "vm" },
      cases: [{ field: "runtype", says: /runtype: a VM needs an SSH key registered/ }],
    },
    {
      what: "an overlay that does not exist",
      args: { offerQuery: {}, image: "pytorch/pytorch", diskGb: 20, overlay: "no-such-net" },
      cases: [
        {
          field: "overlay",
          says: /overlay: no overlay named no-such-net on the account: declare it with a gpucloud Overlay/,
        },
      ],
    },
    {
      what: "by query, on a volume the account does not hold",
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
      what: "by ask, on a volume the account does not hold",
      args: { ...validInstance, volume: { volumeId: 999, mountPath: "/data" } },
      cases: [{ field: "volume.volumeId", says: /^volume\.volumeId: no volume 999 \(V\.999\) on/ }],
    },
    {
      what: "an ask in another cluster than its overlay",
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
}

/**
 * An instance as its state records it once running (before the service says where to reach
 * it), its one attempt on `askId`. The unit tests of the diff start from it too.
 */
export function runningInstance(
  inputs: InstanceInputs,
  askId = inputs.askId ?? 31001,
): InstanceOutputs {
  return {
    ...inputs,
    instanceId: 7,
    actualStatus: "running",
    sshHost: null,
    sshPort: null,
    publicIp: null,
    gpuRamMb: null,
    statusMessage: null,
    attempts: [{ askId, instanceId: 7 }],
  };
}

/** The offer an instance by query was rented on, as the search answered it. */
const rentedOffer = {
  askId: 31001,
  gpuName: "RTX 4090",
  numGpus: 1,
  dollarsPerHour: 0.5,
  machineId: 9,
  verified: true,
  rentable: true,
  rented: false,
  external: false,
};

/** Instances by ask, by query, with a lifetime and a VM, as their states record them. */
export function instanceRecorded(): readonly RecordedState[] {
  // What a program gives least, at the schema's defaults, over SSH: by query, and by ask.
  const { askId: _askId, ...byQuery } = {
    ...instanceInputsSchema.parse({ askId: 31001, image: "img", diskGb: 20 }),
    runtype: "ssh" as const,
  };
  const byAsk = { ...byQuery, askId: 31001 };
  return [
    // Rented from an ask: a new list keeps it while the list still holds that ask.
    { olds: runningInstance(byAsk), changes: { askIds: [[31001, 31002], [31002]] } },
    // On demand: adding a bid replaces; interruptible: a new bid does not.
    { olds: runningInstance(byAsk), changes: { price: [0.5] } },
    { olds: runningInstance({ ...byAsk, price: 0.2 }), changes: { price: [0.3] } },
    // By query: kept while its offer matches the query and the price cap.
    {
      olds: {
        ...runningInstance(
          { ...byQuery, offerQuery: { gpuName: "RTX 4090" }, maxDollarsPerHour: 1 },
          31001,
        ),
        offer: rentedOffer,
      },
      changes: {
        offerQuery: [{ gpuName: "RTX 4090", numGpus: 1 }, { gpuName: "RTX 3090" }],
        maxDollarsPerHour: [2, 0.4],
      },
    },
    // With a lifetime: another duration or onExpiry replaces (the deadline is in the onstart);
    // the same duration written otherwise, or the default written out, does not.
    {
      olds: {
        ...runningInstance({ ...byAsk, maxLifetime: "8h" }),
        expiresAt: "2999-01-01T00:00:00Z",
      },
      changes: {
        maxLifetime: ["480m", "9h"],
        onExpiry: ["destroy", "stop"],
        // A new idle rule, added or changed, rebuilds the container in place.
        idleShutdown: [{ after: "30m" }, { after: "2h", action: "stop" }],
      },
    },
    // A VM: what runs replaces it (the service rebuilds containers in place, not VMs).
    { olds: runningInstance({ ...byAsk, runtype: "vm" }) },
  ];
}
