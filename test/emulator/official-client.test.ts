import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { cachedVirtualEnv, cacheRoot } from "../support/cached-venv";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, createEndpoint, pollUntilRunning } from "./helpers";

/**
 * The service's official command-line client, run for real against a started emulator, in both
 * of its forms: the package of today (vastai 1.9.1, `vastai.cli`), whose overlay commands are
 * disabled "for now" but whose SDK still has them, and the older single file (vastai 0.5.0, the
 * last release that ships vast.py), which the multi-node guide's commands were written for.
 *
 * Each is installed, pinned with everything it needs (official-client/*.txt), into a virtual
 * environment of its own kept in the project's cache. Nothing reaches past this machine: both
 * clients take the emulator from --url and from VAST_URL (which each also reads at load for a
 * GPU-name list), HOME is a new directory, the update check of today's client is off, and any
 * request that still went elsewhere would go to a proxy of the test's that answers nothing and
 * counts it: every test ends with that count at zero.
 */

const execFileAsync = promisify(execFile);
/** Today's client takes about a second to start; a test runs up to two dozen commands. */
const COMMANDS_TIMEOUT_MS = 240_000;
const LOCKS = path.join(__dirname, "official-client");

interface Client {
  readonly name: string;
  readonly lock: string;
}
const MODERN: Client = { name: "vastai 1.9.1", lock: "vastai-1.9.1.txt" };
const LEGACY: Client = { name: "vast.py (vastai 0.5.0)", lock: "vastai-0.5.0.txt" };

/** A virtual environment holding exactly the lock's packages, made once per machine. */
function clientEnvironment(client: Client): Promise<string> {
  const lock = path.join(LOCKS, client.lock);
  return cachedVirtualEnv(path.basename(lock, ".txt"), [lock], async (dir) => {
    await execFileAsync("python3", ["-m", "venv", dir]);
    // The wheelhouse of scripts/ensure-python-tools.sh is offered as a source when it exists,
    // the package index otherwise.
    const wheels = path.join(cacheRoot(), "python-wheels");
    const findLinks = fs.existsSync(wheels) ? ["--find-links", wheels] : [];
    try {
      await execFileAsync(
        path.join(dir, "bin", "pip"),
        [
          "install",
          "--quiet",
          "--disable-pip-version-check",
          "--no-deps",
          ...findLinks,
          "-r",
          lock,
        ],
        { maxBuffer: 16 * 1024 * 1024, timeout: 540_000 },
      );
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      throw new Error(`installing ${client.name} failed:\n${stderr ?? String(error)}`);
    }
  });
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.each([MODERN, LEGACY])("the official client, $name, against the emulator", (client) => {
  let venv: string;
  let emulator: TestEmulator;
  let home: string;
  let proxy: net.Server;
  let proxyUrl: string;
  let strayConnections: number;

  beforeAll(async () => {
    venv = await clientEnvironment(client);
  }, 600_000);
  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, market: { seed: 1 } });
    home = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-vastai-home-"));
    strayConnections = 0;
    proxy = net.createServer((socket) => {
      strayConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${String((proxy.address() as net.AddressInfo).port)}`;
  });
  afterEach(async () => {
    // The client sent nothing the service's documents do not give (the emulator runs strict).
    const log = z
      .object({ undocumented: z.number() })
      .parse((await emulator.control("GET", "/_emulator/requests")).body);
    await emulator.close();
    await new Promise<void>((resolve) => {
      proxy.close(() => {
        resolve();
      });
    });
    fs.rmSync(home, { recursive: true, force: true });
    // Nothing the clients did went anywhere but to the emulator.
    expect(strayConnections).toBe(0);
    expect(log.undocumented).toBe(0);
  });

  /** Only what the client needs: no key or setting of the developer's reaches it. */
  const environment = (): NodeJS.ProcessEnv => ({
    PATH: process.env["PATH"] ?? "",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    VAST_URL: emulator.url,
    VASTAI_NO_UPDATE_CHECK: "1",
    // A request for anything but the emulator would reach the test's proxy, which counts it.
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    PYTHONDONTWRITEBYTECODE: "1",
  });

  const run = async (file: string, args: string[]): Promise<Run> => {
    try {
      const { stdout, stderr } = await execFileAsync(file, args, {
        env: environment(),
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
    }
  };
  /** A `vastai` command, pointed at the emulator by its own flags. */
  const vastai = (...args: string[]) =>
    run(path.join(venv, "bin", "vastai"), [...args, "--url", emulator.url, "--api-key", API_KEY]);
  /** A command that must succeed, printing JSON (`--raw`). */
  const json = async (...args: string[]): Promise<unknown> => {
    const result = await vastai(...args, "--raw");
    expect({ args, code: result.code, stderr: result.stderr }).toEqual({
      args,
      code: 0,
      stderr: "",
    });
    return JSON.parse(result.stdout) as unknown;
  };
  /**
   * Overlays: the single file has commands for them; today's package keeps them in its SDK
   * (vastai.api.clusters through VastAI) while its command line leaves them out.
   */
  const overlay = async (command: "create" | "show" | "join" | "delete", ...args: string[]) => {
    if (client === LEGACY) {
      const words = command === "show" ? ["overlays"] : ["overlay", ...args];
      return vastai(command, ...words, "--raw");
    }
    const script = [
      "import json, sys",
      "from vastai import VastAI",
      "sdk = VastAI(api_key=sys.argv[1], server_url=sys.argv[2])",
      "op, rest = sys.argv[3], sys.argv[4:]",
      "out = {'create': lambda: sdk.create_overlay(int(rest[0]), rest[1]),",
      "       'show': lambda: sdk.show_overlays(),",
      "       'join': lambda: sdk.join_overlay(rest[0], int(rest[1])),",
      "       'delete': lambda: sdk.delete_overlay(rest[0])}[op]()",
      "print(json.dumps(out))",
    ].join("\n");
    return run(path.join(venv, "bin", "python"), [
      "-c",
      script,
      API_KEY,
      emulator.url,
      command,
      ...args,
    ]);
  };

  const OffersSchema = z.array(
    z.looseObject({ id: z.int(), cluster_id: z.int().nullable(), machine_id: z.int() }),
  );
  const CreatedSchema = z.object({ success: z.literal(true), new_contract: z.int() });
  const OverlaysSchema = z.array(
    z.object({
      overlay_id: z.int(),
      name: z.string(),
      internal_subnet: z.string(),
      cluster_id: z.int(),
      instances: z.array(z.int()),
    }),
  );

  /**
   * An offer of the market, read from the API rather than through the client, for a test whose
   * subject is what follows: the client's searches are the first test's, and each client run
   * costs a second or more of CPU.
   */
  const anOffer = async (
    matches: (offer: { cluster_id: number | null; num_gpus: number }) => boolean,
  ) => {
    const { offers } = z
      .object({
        offers: z.array(
          z.looseObject({ id: z.int(), cluster_id: z.int().nullable(), num_gpus: z.number() }),
        ),
      })
      .parse((await emulator.call("POST", "/api/v0/bundles/", {})).body);
    const offer = offers.find(matches);
    if (!offer) throw new Error("no such offer in the market");
    return offer;
  };
  const createInstance = async (askId: number, env: string) =>
    CreatedSchema.parse(
      await json(
        "create",
        "instance",
        String(askId),
        "--image",
        "pytorch/pytorch",
        "--disk",
        "20",
        "--ssh",
        "--env",
        env,
      ),
    ).new_contract;
  const localAddresses = async (id: number) => {
    await pollUntilRunning(emulator.call, id);
    const shown = z
      .looseObject({ local_ipaddrs: z.string().nullable() })
      .parse(await json("show", "instance", String(id)));
    return shown.local_ipaddrs?.trim().split(" ") ?? [];
  };

  // One emulator's market serves the searches, then the overlay and the network volume on the
  // cluster they found: each command a client run, so the facts share the runs they can.
  it(
    "searches offers by cluster; makes an overlay and a network volume, puts instances on them, deletes them (the volume once unmounted); sends every request to the emulator, the key never in its log",
    async () => {
      const clustered = OffersSchema.parse(await json("search", "offers", "cluster_id!=None"));
      const clusters = [...new Set(clustered.map((o) => o.cluster_id))];
      expect(clusters.length).toBeGreaterThanOrEqual(2);
      expect(clusters).not.toContain(null);
      // A cluster with a network disk and at least three offers.
      const disks = z
        .array(z.looseObject({ id: z.int(), cluster_id: z.int(), disk_space: z.number() }))
        .parse(await json("search", "network-volumes"));
      const disk = disks.find(
        (found) => clustered.filter((o) => o.cluster_id === found.cluster_id).length >= 3,
      );
      if (!disk) throw new Error("the market has no cluster with a network disk and three offers");
      const clusterId = disk.cluster_id;
      const offers = OffersSchema.parse(
        await json("search", "offers", `cluster_id=${String(clusterId)}`),
      );
      expect(offers.length).toBeGreaterThanOrEqual(3);
      expect(offers.every((o) => o.cluster_id === clusterId)).toBe(true);
      const none = OffersSchema.parse(await json("search", "offers", "cluster_id=None"));
      expect(none.length).toBeGreaterThan(0);
      expect(none.every((o) => o.cluster_id === null)).toBe(true);
      const table = await vastai("search", "offers", `cluster_id=${String(clusterId)}`);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(String(offers[0]?.id));
      const [a, b] = offers;
      const [outside] = none;
      if (!a || !b || !outside) throw new Error("too few offers");

      // The network volume, on the disk's cluster.
      const made = z
        .object({ success: z.literal(true), volume_name: z.string() })
        .parse(
          await json("create", "network-volume", String(disk.id), "-s", "100", "-n", "shared"),
        );
      const volumeId = Number(made.volume_name.slice(2));
      const volumes = z
        .array(
          z.looseObject({
            id: z.int(),
            cluster_id: z.int().nullable(),
            label: z.string().nullable(),
          }),
        )
        .parse(await json("show", "volumes", "--type", "network"));
      expect(volumes).toEqual([
        expect.objectContaining({ id: volumeId, cluster_id: clusterId, label: "shared" }),
      ]);

      // The overlay, on the same cluster.
      const created = await overlay("create", String(clusterId), "train-net");
      expect(created.code).toBe(0);
      expect(created.stdout).toContain("Overlay train-net created");
      const again = await overlay("create", String(clusterId), "train-net");
      // The single file prints the refusal and exits 0; the SDK raises.
      expect(`${again.stdout}${again.stderr}`).toMatch(/400/);
      expect(await emulator.control("GET", "/_emulator/state")).toMatchObject({
        body: { overlays: [{ name: "train-net", clusterId }] },
      });

      // The first joins the overlay at create and mounts the volume with -v; a volume of the
      // cluster cannot be mounted outside it; the second joins by join, the third cannot.
      const first = await createInstance(
        a.id,
        `-e RANK=0 -n train-net -v ${made.volume_name}:/data`,
      );
      expect(
        await emulator.call("GET", `/api/v0/instances/${String(first)}/?owner=me`),
      ).toMatchObject({
        body: { instances: { volume_info: [{ volume_id: volumeId, mount_path: "/data" }] } },
      });
      const elsewhere = await vastai(
      "create", "instance", String(outside.id), "--image", "img", "--disk", "20", "--env", `-v ${made.volume_name}:/data`, "--raw",
    ); // prettier-ignore
      expect(`${elsewhere.stdout}${elsewhere.stderr}`).toContain(
        `is on cluster ${String(clusterId)}`,
      );
      const second = await createInstance(b.id, "-e RANK=1");
      const third = await createInstance(outside.id, "-e RANK=2");
      expect((await overlay("join", "train-net", String(second))).code).toBe(0);
      const refused = await overlay("join", "train-net", String(third));
      expect(`${refused.stdout}${refused.stderr}`).toMatch(/400/);

      const listed = await overlay("show");
      expect(listed.code).toBe(0);
      const [net] = OverlaysSchema.parse(JSON.parse(listed.stdout));
      expect(net).toMatchObject({
        name: "train-net",
        cluster_id: clusterId,
        instances: [first, second],
      });
      expect(await localAddresses(first)).toEqual([
        "10.100.0.1",
        expect.stringMatching(/^10\.0\./),
        "172.17.0.1",
      ]);
      expect((await localAddresses(second))[0]).toBe("10.100.0.2");

      const stillMounted = await vastai("delete", "volume", String(volumeId), "--raw");
      expect(`${stillMounted.stdout}${stillMounted.stderr}`).toContain(
        `is mounted by instance ${String(first)}`,
      );

      const deleted = await overlay("delete", "train-net");
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toContain("Overlay train-net deleted");
      expect(await emulator.control("GET", "/_emulator/state")).toMatchObject({
        body: { overlays: [] },
      });
      expect((await localAddresses(first))[0]).toMatch(/^10\.0\./);

      const destroyArgs = client === MODERN ? ["-y"] : [];
      expect((await vastai("destroy", "instance", String(first), ...destroyArgs)).code).toBe(0);
      expect(await json("delete", "volume", String(volumeId))).toEqual({ success: true });
      expect(await emulator.control("GET", "/_emulator/state")).toMatchObject({
        body: { networkVolumes: [] },
      });

      const log = (await emulator.control("GET", "/_emulator/requests")).text;
      // The GPU-name list each form reads at load came from the emulator too.
      expect(log).toContain("/api/v0/gpu_names/unique/");
      expect(log).toContain("/api/v0/bundles/");
      expect(log).not.toContain(API_KEY);
    },
    COMMANDS_TIMEOUT_MS,
  );

  // Today's package has a serverless client (vastai.serverless); the single file has none.
  if (client === MODERN) {
    it(
      "its serverless client calls an endpoint: the route call, then the worker it names",
      async () => {
        const template = z.object({ template: z.object({ hash_id: z.string() }) }).parse(
          (
            await emulator.call("POST", "/api/v0/template/", {
              name: "worker",
              image: "vllm/vllm-openai",
              tag: "v1",
              recommended_disk_space: 20,
            })
          ).body,
        ).template;
        const endpointId = await createEndpoint(emulator.call, { cold_workers: 1 });
        await emulator.call("POST", "/api/v0/workergroups/", {
          endpoint_id: endpointId,
          template_hash: template.hash_id,
          gpu_ram: 24,
        });
        // The client finds the endpoint (and its own key) in the account's list, routes with
        // that key, and posts {auth_data, payload} to the worker. Plain HTTP: no certificate
        // to fetch from the service (its get_ssl_context would).
        const script = [
          "import asyncio, json, sys",
          "from vastai.serverless.client.client import Serverless",
          "async def main(url, key):",
          "    client = Serverless(api_key=key, autoscaler_url=url, webserver_url=url)",
          "    async def no_ssl():",
          "        return None",
          "    client.get_ssl_context = no_ssl",
          "    async with client:",
          "        endpoint = await client.get_endpoint('llm')",
          "        result = await endpoint.request('/generate', {'inputs': 'hi'}, cost=10, timeout=30)",
          "        print(json.dumps({'ok': result['ok'], 'response': result['response']}))",
          "asyncio.run(main(sys.argv[1], sys.argv[2]))",
        ].join("\n");
        const result = await run(path.join(venv, "bin", "python"), [
          "-c",
          script,
          emulator.url,
          API_KEY,
        ]);
        expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
        expect(JSON.parse(result.stdout)).toEqual({
          ok: true,
          response: {
            worker: expect.any(Number) as unknown,
            route: "/generate",
            reqnum: expect.any(Number) as unknown,
            payload: { inputs: "hi" },
          },
        });
      },
      COMMANDS_TIMEOUT_MS,
    );

    // `show invoices-v1` is today's package's; the single file has only the older invoices.
    it(
      "show invoices-v1 reads the charges of an instance that ran and was destroyed, and the invoices",
      async () => {
        const DAY = 86_400;
        const day = (Math.floor((await emulator.clock()).nowSeconds / DAY) + 1) * DAY;
        await emulator.clock({ frozen: true, nowSeconds: day + 3600 });
        const offer = await anOffer((found) => found.num_gpus === 1);
        const id = await createInstance(offer.id, "-e A=1");
        await pollUntilRunning(emulator.call, id);
        const prices = z
          .object({
            instances: z.looseObject({ dph_base: z.number(), storage_total_cost: z.number() }),
          })
          .parse(
            (await emulator.call("GET", `/api/v0/instances/${String(id)}/?owner=me`)).body,
          ).instances;
        await emulator.clock({ advanceSeconds: 2 * 3600 });
        expect((await vastai("destroy", "instance", String(id), "-y")).code).toBe(0);
        await emulator.addInvoice({ amountDollars: -25, createdAtSeconds: day + 60 });

        const range = ["-s", String(day), "-e", String(day + DAY - 1), "-l", "50"];
        const charges = z
          .object({
            results: z.array(
              z.looseObject({
                source: z.string(),
                amount: z.number(),
                items: z.array(z.looseObject({ type: z.string(), amount: z.number() })),
              }),
            ),
            next_token: z.null(),
          })
          .parse(await json("show", "invoices-v1", "--charges", ...range));
        const round3 = (amount: number) => Math.round(amount * 1000) / 1000;
        expect(charges.results).toEqual([
          expect.objectContaining({
            source: `instance-${String(id)}`,
            amount: round3(2 * (prices.dph_base + prices.storage_total_cost)),
          }),
        ]);
        expect(charges.results[0]?.items.slice(0, 2)).toEqual([
          expect.objectContaining({ type: "gpu", amount: round3(2 * prices.dph_base) }),
          expect.objectContaining({ type: "disk", amount: round3(2 * prices.storage_total_cost) }),
        ]);
        const invoices = await json("show", "invoices-v1", "--invoices", ...range);
        expect(invoices).toMatchObject({ results: [{ start: day + 60, amount: -25 }] });
      },
      COMMANDS_TIMEOUT_MS,
    );
  }

  it(
    "updates an on-demand instance's container in place, reboots and recycles it: the same instance; then prepays it: the months and the discount it prints",
    async () => {
      const offer = await anOffer((found) => found.cluster_id === null);
      const id = await createInstance(offer.id, "-e MODEL=a");
      const updated = await vastai(
        ...["update", "instance", String(id), "--image", "vllm/vllm-openai:v0.6.1"],
        ...["--env", '{"MODEL": "b"}', "--onstart", "echo rebuilt"],
      );
      expect({ code: updated.code, stdout: updated.stdout }).toEqual({
        code: 0,
        stdout: expect.stringContaining(`Instance ${String(id)} updated successfully.`) as unknown,
      });
      const rebooted = await vastai("reboot", "instance", String(id));
      expect(rebooted.stdout).toContain(`Rebooting instance ${String(id)}.`);
      const recycled = await vastai("recycle", "instance", String(id));
      expect(recycled.stdout).toContain(`Recycling instance ${String(id)}.`);
      const state = z
        .object({ instances: z.array(z.looseObject({ id: z.int() })) })
        .parse((await emulator.control("GET", "/_emulator/state")).body);
      expect(state.instances.find((i) => i.id === id)).toMatchObject({
        image: "vllm/vllm-openai:v0.6.1",
        env: { MODEL: "b" },
        onstart: "echo rebuilt",
      });

      // The same instance, still on-demand, prepaid.
      const prepaid = await vastai("prepay", "instance", String(id), "50");
      expect({ code: prepaid.code, stdout: prepaid.stdout }).toEqual({
        code: 0,
        stdout: expect.stringMatching(
          new RegExp(
            `^prepaid for [0-9.]+ months of instance ${String(id)} applying \\$50\\.0 ` +
              "credits for a discount of [0-9.]+%",
          ),
        ) as unknown,
      });
    },
    COMMANDS_TIMEOUT_MS,
  );
});
