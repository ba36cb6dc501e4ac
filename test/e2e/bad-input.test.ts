import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ConfigMap, Stack } from "@pulumi/pulumi/automation";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, expectNoLeak, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

/**
 * Bad input as a new user writes it, across every resource, function and configuration key.
 * Each must fail `pulumi preview` with one line naming the field and saying what is allowed,
 * never print a secret or a huge value, and send no write. The engine stops a preview at the
 * first resource whose check fails, but reports every failure of that resource: a group is one
 * resource (or one program) with several bad fields, so each preview checks several cases.
 */
interface Case {
  /** The field, as the message names it. */
  readonly field: string;
  /** What the line must say (the field first, then what was wrong and what is allowed). */
  readonly says: RegExp;
}

interface Group {
  readonly what: string;
  /** The program's body (JavaScript, with gpucloud and pulumi in scope). */
  readonly program: string;
  /** Stack config; the emulator's address and key unless given. */
  readonly config?: ConfigMap;
  readonly cases: readonly Case[];
  /** Values that must not appear in the output (the configured key is always searched). */
  readonly secrets?: readonly string[];
}

const secret = (key: unknown, value: unknown) =>
  `new gpucloud.Secret("s", { key: ${JSON.stringify(key)}, value: ${JSON.stringify(value)} });`;
const resource = (type: string, args: Record<string, unknown>) =>
  `new gpucloud.${type}("r", ${JSON.stringify(args)});`;
const validInstance = { askId: 31001, image: "pytorch/pytorch", diskGb: 20 };
const privateKey =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----";
// 200 KB that gzip cannot shrink: an onstart script the service cannot take.
const hugeOnstart = randomBytes(150_000).toString("base64");
const envSecret = "env-secret-value-4711";
const plainSecret = "a b$c";

function resourceGroups(): Group[] {
  return [
    {
      what: "Secret: wrong types and characters",
      program: secret(123, plainSecret),
      cases: [
        { field: "key", says: /key: expected a string, received 123/ },
        {
          field: "value",
          says: /value: value may hold only letters, digits, _, - and \. \(received a string of 5 characters\)/,
        },
      ],
      secrets: [plainSecret],
    },
    {
      what: "Secret: limits",
      program: secret("1ABC", "v".repeat(3000)),
      cases: [
        { field: "key", says: /key: key may hold only letters, digits and _, and must not start/ },
        { field: "value", says: /value: value must be at most 2048 characters; got 3000/ },
      ],
      secrets: ["v".repeat(3000)],
    },
    {
      what: "Secret: missing fields",
      program: `new gpucloud.Secret("s", {});`,
      cases: [
        { field: "key", says: /key: required: the variable's name/ },
        { field: "value", says: /value: required: a string of letters, digits, _, - and \./ },
      ],
    },
    {
      what: "Secret: empty key, value of another type",
      program: secret("K".repeat(200), true),
      cases: [
        { field: "key", says: /key: key must be at most 128 characters; got 200 characters/ },
        { field: "value", says: /value: expected a string, received true/ },
      ],
    },
    {
      what: "Volume: wrong types",
      program: resource("Volume", { askId: "abc", sizeGb: 1.5 }),
      cases: [
        { field: "askId", says: /askId: expected a number, received a string of 3 characters/ },
        { field: "sizeGb", says: /sizeGb: expected a whole number, received 1\.5/ },
      ],
    },
    {
      what: "Volume: a number given as a string, a negative ask",
      program: resource("Volume", { askId: -3, sizeGb: "40" }),
      cases: [
        { field: "askId", says: /askId: askId must be positive; got -3/ },
        { field: "sizeGb", says: /sizeGb: expected a number, received a string holding a number/ },
      ],
    },
    {
      what: "Volume: missing ask, zero size",
      program: resource("Volume", { sizeGb: 0 }),
      cases: [
        { field: "askId", says: /askId: required: the id of a volume ask/ },
        { field: "sizeGb", says: /sizeGb: sizeGb must be positive; got 0/ },
      ],
    },
    {
      what: "Volume: more than the ask offers",
      program: resource("Volume", { askId: 21001, sizeGb: 5000 }),
      cases: [
        {
          field: "sizeGb",
          says: /sizeGb: 5000 GB is more than ask 21001 offers \(100 GB disk_space\)/,
        },
      ],
    },
    {
      what: "Webhook: wrong scheme and types",
      program: resource("Webhook", {
        url: "http://hooks.example.com/x",
        eventTypes: "client:low_credit",
        name: "two\nlines",
        secretRotation: 5,
      }),
      cases: [
        { field: "url", says: /url: url must be an https:\/\/ URL/ },
        { field: "eventTypes", says: /eventTypes: expected a list, received a string/ },
        { field: "name", says: /name: name must not contain control characters/ },
        { field: "secretRotation", says: /secretRotation: expected a string, received 5/ },
      ],
    },
    {
      what: "Webhook: limits",
      program: resource("Webhook", {
        url: `https://hooks.example.com/${"p".repeat(3000)}`,
        eventTypes: [],
        name: "n".repeat(200),
      }),
      cases: [
        { field: "url", says: /url: url must be at most 2048 characters; got 3026 characters/ },
        { field: "eventTypes", says: /eventTypes: eventTypes needs at least one event type/ },
        { field: "name", says: /name: name must be at most 120 characters; got 200 characters/ },
      ],
    },
    {
      what: "Webhook: missing url, malformed event key",
      program: resource("Webhook", { eventTypes: ["low credit"] }),
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
      program: resource("Webhook", {
        url: "https://hooks.example.com/x",
        eventTypes: ["client:no_such_event"],
      }),
      cases: [
        {
          field: "eventTypes",
          says: /eventTypes: client:no_such_event is not a notification type of this service; valid keys: client:/,
        },
      ],
    },
    {
      what: "SshKey: a private key",
      program: resource("SshKey", { publicKey: privateKey }),
      cases: [{ field: "publicKey", says: /publicKey: publicKey holds a private key/ }],
      secrets: privateKey.split("\n").filter((line) => line.length > 40),
    },
    {
      what: "SshKey: mangled key data",
      program: resource("SshKey", { publicKey: "ssh-ed25519 not!base64 me@host" }),
      cases: [
        {
          field: "publicKey",
          says: /publicKey: publicKey's key data is not a base64 ssh-ed25519 public key/,
        },
      ],
    },
    {
      what: "SshKey: an unknown key type",
      program: resource("SshKey", { publicKey: "ssh-foo AAAA me@host" }),
      cases: [{ field: "publicKey", says: /publicKey: .*type one of ssh-ed25519, ssh-rsa/ }],
    },
    {
      what: "SshKey: a number",
      program: resource("SshKey", { publicKey: 42 }),
      cases: [{ field: "publicKey", says: /publicKey: expected a string, received 42/ }],
    },
    {
      what: "ApiKey: wrong type, unknown category",
      program: resource("ApiKey", { name: 5, permissions: { api: { instance_reed: {} } } }),
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
      program: resource("ApiKey", { name: " ", permissions: { api: {} } }),
      cases: [
        { field: "name", says: /name: name must not be empty/ },
        { field: "permissions", says: /permissions.api: api must grant at least one category/ },
      ],
    },
    {
      what: "ApiKey: control characters, missing scope",
      program: resource("ApiKey", { name: "ci\tkey" }),
      cases: [
        { field: "name", says: /name: name must not contain control characters/ },
        { field: "permissions", says: /permissions: required: permissions must be \{ api:/ },
      ],
    },
    {
      what: "ApiKey: extra top-level key",
      program: resource("ApiKey", { name: "ci", permissions: { api: { misc: {} }, read: true } }),
      cases: [{ field: "permissions", says: /permissions: only api is allowed at the top level/ }],
    },
    {
      what: "Instance: every field wrong at once",
      program: resource("Instance", {
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
      }),
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
        { field: "label", says: /label: label must be at most 1024 characters; got 10000/ },
        { field: "runtype", says: /runtype: runtype must be ssh, jupyter, args or vm/ },
        {
          field: "price",
          says: /price: price \(the bid, \$\/hour\) must be at least 0.001; got -1/,
        },
        {
          field: "createTimeoutSeconds",
          says: /createTimeoutSeconds: createTimeoutSeconds must be positive; got 0/,
        },
        { field: "maxAttempts", says: /maxAttempts: maxAttempts must be at most 10; got 11/ },
        { field: "state", says: /state: state must be running or stopped/ },
        {
          field: "pollIntervalSeconds",
          says: /pollIntervalSeconds: pollIntervalSeconds must be at least 0.05; got 0/,
        },
        { field: "sshKeyIds", says: /sshKeyIds: expected a list, received a string/ },
      ],
      secrets: [hugeOnstart.slice(0, 64), hugeOnstart.slice(-64), envSecret],
    },
    {
      what: "Instance: more fields wrong",
      program: resource("Instance", {
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
      }),
      cases: [
        { field: "askIds", says: /askIds: askIds must list at least one ask/ },
        { field: "image", says: /image: image must not be empty/ },
        { field: "diskGb", says: /diskGb: diskGb must be at least 8 \(GB\); got 4/ },
        { field: "env.TOKEN", says: /env.TOKEN: expected a string, received 5/ },
        { field: "maxAttempts", says: /maxAttempts: expected a whole number, received 2.5/ },
        { field: "sshKeyIds.0", says: /sshKeyIds.0: an SSH key id is positive; got -1/ },
        { field: "runtype", says: /runtype: runtype must be ssh, jupyter, args or vm/ },
        { field: "state", says: /state: state must be running or stopped/ },
        {
          field: "pollIntervalSeconds",
          says: /pollIntervalSeconds: pollIntervalSeconds must be at most 60; got 100/,
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
      program: resource("Instance", { askIds: [31001, 31002], image: "x", diskGb: 201 }),
      cases: [
        {
          field: "diskGb",
          says: /diskGb: 201 GB is more than ask 31001 offers \(200 GB disk_space\)/,
        },
      ],
    },
    {
      what: "Instance: both askId and askIds",
      program: resource("Instance", { ...validInstance, askIds: [31002] }),
      cases: [{ field: "askId", says: /askId: give askId or askIds, not both/ }],
    },
    {
      what: "Instance: no ask",
      program: resource("Instance", { image: "x", diskGb: 20 }),
      cases: [{ field: "askId", says: /askId: required: the id of an instance offer/ }],
    },
    {
      what: "Instance: a VM on an account without an SSH key",
      program: resource("Instance", { ...validInstance, runtype: "vm" }),
      cases: [{ field: "runtype", says: /runtype: a VM needs an SSH key registered/ }],
    },
    {
      what: "functions: cancelRsyncCopy with a bad dstId",
      program: `
gpucloud.cancelRsyncCopy({ id: 5 });
gpucloud.cancelRsyncCopy(-1);
gpucloud.cancelRsyncCopy("abc");
`,
      cases: [
        {
          field: "dstId",
          says: /cancelRsyncCopy: dstId: an instance id: a positive whole number, or its digits as a string \(received an object\)/,
        },
        { field: "dstId", says: /cancelRsyncCopy: dstId: must be more than 0; got -1/ },
        {
          field: "dstId",
          says: /cancelRsyncCopy: dstId: the digits of an instance id \(received a string of 3 characters\)/,
        },
      ],
    },
  ];
}

/** A server that answers every request with 404: an address that is not this API. */
async function notTheApi(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** An address where nothing listens: a port that was free a moment ago. */
async function nothingListening(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

function configGroups(emulator: TestEmulator, notApi: string, nowhere: string): Group[] {
  const key = (value: string) => ({ value, secret: true });
  const url = (value: string) => ({ value });
  const wrongKey = "wrong-key-0123456789abcdef";
  const anyResource = secret("TOKEN", "v");
  return [
    {
      what: "config: no API key",
      program: anyResource,
      config: { "gpucloud:baseUrl": url(emulator.url) },
      cases: [{ field: "gpucloud:apiKey", says: /gpucloud:apiKey is not set: run `pulumi config/ }],
    },
    {
      what: "config: no base URL",
      program: anyResource,
      config: { "gpucloud:apiKey": key(emulator.apiKey) },
      cases: [
        { field: "gpucloud:baseUrl", says: /gpucloud:baseUrl is not set: run `pulumi config/ },
      ],
    },
    {
      what: "config: an ftp:// base URL",
      program: anyResource,
      config: { "gpucloud:apiKey": key(emulator.apiKey), "gpucloud:baseUrl": url("ftp://x.io") },
      cases: [
        {
          field: "gpucloud:baseUrl",
          says: /gpucloud:baseUrl must be an http:\/\/ or https:\/\/ URL.*received a ftp: URL/,
        },
      ],
    },
    {
      what: "config: a base URL that is no URL",
      program: anyResource,
      config: { "gpucloud:apiKey": key(emulator.apiKey), "gpucloud:baseUrl": url("console") },
      cases: [
        {
          field: "gpucloud:baseUrl",
          says: /gpucloud:baseUrl must be an http:\/\/ or https:\/\/ URL.*not a URL/,
        },
      ],
    },
    {
      what: "config: a base URL ending in /api/v0",
      program: anyResource,
      config: {
        "gpucloud:apiKey": key(emulator.apiKey),
        "gpucloud:baseUrl": url(`${emulator.url}/api/v0`),
      },
      cases: [
        {
          field: "gpucloud:baseUrl",
          says: /gpucloud:baseUrl must be the service's address without \/api\/v0/,
        },
      ],
    },
    {
      what: "config: a base URL that answers, but is not this API",
      program: anyResource,
      config: { "gpucloud:apiKey": key(emulator.apiKey), "gpucloud:baseUrl": url(notApi) },
      cases: [
        {
          field: "gpucloud:baseUrl",
          says: /gpucloud:baseUrl http:\/\/127.0.0.1:\d+ answers, but not as the gpucloud API \(HTTP 404.*without \/api\/v0\?/,
        },
      ],
    },
    {
      what: "config: a base URL where nothing listens",
      program: anyResource,
      config: { "gpucloud:apiKey": key(emulator.apiKey), "gpucloud:baseUrl": url(nowhere) },
      cases: [
        {
          field: "gpucloud:baseUrl",
          says: new RegExp(`gpucloud:baseUrl ${nowhere}: nothing answers there`),
        },
      ],
    },
    {
      what: "config: a wrong key",
      program: anyResource,
      config: { "gpucloud:apiKey": key(wrongKey), "gpucloud:baseUrl": url(emulator.url) },
      cases: [
        {
          field: "gpucloud:apiKey",
          says: /gpucloud:apiKey was refused by http:\/\/127.0.0.1:\d+ \(HTTP 401\)/,
        },
      ],
      secrets: [wrongKey],
    },
    {
      what: "functions: getCurrentUser with a wrong key",
      program: `exports.user = gpucloud.getCurrentUser();`,
      config: { "gpucloud:apiKey": key(wrongKey), "gpucloud:baseUrl": url(emulator.url) },
      cases: [{ field: "gpucloud:apiKey", says: /gpucloud:apiKey was refused by .* \(HTTP 401\)/ }],
      secrets: [wrongKey],
    },
    {
      what: "functions: getCurrentUser where nothing listens",
      program: `exports.user = gpucloud.getCurrentUser();`,
      config: { "gpucloud:apiKey": key(emulator.apiKey), "gpucloud:baseUrl": url(nowhere) },
      cases: [{ field: "gpucloud:baseUrl", says: /gpucloud:baseUrl .*: nothing answers there/ }],
    },
  ];
}

/** Sets exactly the given gpucloud config: keys absent from it are removed. */
async function applyConfig(stack: Stack, config: ConfigMap): Promise<void> {
  for (const name of ["gpucloud:apiKey", "gpucloud:baseUrl"]) {
    if (!(name in config)) await stack.removeConfig(name).catch(() => undefined);
  }
  await stack.setAllConfig(config);
}

describe("bad input fails at preview, in one line, naming the field", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("at least 60 bad inputs across resources, functions and configuration", async () => {
    const notApi = await notTheApi();
    const nowhere = await nothingListening();
    const groups = [...resourceGroups(), ...configGroups(emulator, notApi.url, nowhere)];
    const cases = groups.reduce((sum, group) => sum + group.cases.length, 0);
    expect(cases).toBeGreaterThanOrEqual(60);
    const problems: string[] = [];
    try {
      await withStack(
        // The environment's fallbacks are cleared: only the stack config counts.
        { program: program(""), env: { GPUCLOUD_API_KEY: "", GPUCLOUD_BASE_URL: "" } },
        async ({ stack, setProgram }) => {
          for (const group of groups) {
            await applyConfig(stack, group.config ?? emulatorConfig(emulator));
            await setProgram(program(group.program));
            const printed: string[] = [];
            const passed = await stack.preview({ onOutput: (text) => printed.push(text) }).then(
              () => true,
              () => false,
            );
            const output = printed.join("");
            if (passed) problems.push(`${group.what}: the preview passed`);
            for (const { field, says } of group.cases) {
              if (!says.test(output))
                problems.push(`${group.what}: ${field} not reported as ${says}`);
            }
            // A few KB at most, one readable line per problem.
            if (output.length > 8_192)
              problems.push(`${group.what}: ${output.length} chars printed`);
            const longest = Math.max(...output.split("\n").map((line) => line.length));
            if (longest > 700) problems.push(`${group.what}: a ${longest}-char line`);
            if (/^\s+at .*:\d+:\d+\)?$/m.test(output))
              problems.push(`${group.what}: a stack trace`);
            expectNoLeak([output], [emulator.apiKey, ...(group.secrets ?? [])]);
          }
        },
      );
    } finally {
      await notApi.close();
    }
    expect(problems).toEqual([]);
    expect(await emulator.writes()).toEqual([]);
  });

  it("a scoped key without user_read is not a configuration error", async () => {
    const scopedKey = "scoped-key-without-user-read";
    await emulator.addKey(scopedKey, { api: { misc: {} } });
    await withStack(
      { program: program(secret("TOKEN", "v")), config: emulatorConfig(emulator, scopedKey) },
      async ({ preview, output }) => {
        await preview();
        expectNoLeak(output, [scopedKey]);
      },
    );
  });
});
