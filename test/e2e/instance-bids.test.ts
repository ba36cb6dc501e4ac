import { request } from "undici";
import { z } from "zod";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { dynamicResources, emulatorConfig, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Bids that change in place, an outbid instance seen by refresh and won back by the next up,
// and an instance launched from a template, under the real Pulumi CLI.

const bidProgram = (price: number) =>
  program(`
const gpu = new gpucloud.Instance("gpu", {
  askId: 31001,
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  price: ${price},
  pollIntervalSeconds: 0.05,
});
exports.instanceId = gpu.instanceId;
exports.actualStatus = gpu.actualStatus;
exports.statusMessage = gpu.statusMessage;
exports.outbidByDollarsPerHour = gpu.outbidByDollarsPerHour;
`);

const templateProgram = (hashId: string, replaceOnChanges = false) =>
  program(`
const gpu = new gpucloud.Instance("served", {
  askId: 31001,
  templateHashId: ${JSON.stringify(hashId)},
  env: { MODEL_ID: "org/model-b" },
  pollIntervalSeconds: 0.05,
}${replaceOnChanges ? `, { replaceOnChanges: ["templateHashId"] }` : ""});
exports.instanceId = gpu.instanceId;
exports.actualStatus = gpu.actualStatus;
`);

/** The emulator's test control: a higher bid takes the instance's machine. */
async function outbid(emulator: TestEmulator, instanceId: number, dollarsPerHour: number) {
  const response = await request(`${emulator.url}/_emulator/instances/${instanceId}/outbid`, {
    method: "POST",
    body: JSON.stringify({ dollarsPerHour }),
    headers: { "content-type": "application/json" },
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`outbid control: ${text}`);
}

const templateAnswer = z.object({
  template: z.looseObject({ id: z.number(), hash_id: z.string() }),
});

/** A template made or edited through the service's API (a teammate's, say). */
async function templateCall(
  emulator: TestEmulator,
  method: "POST" | "PUT",
  body: Record<string, unknown>,
): Promise<string> {
  const response = await request(`${emulator.url}/api/v0/template/`, {
    method,
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", authorization: `Bearer ${emulator.apiKey}` },
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`template ${method}: ${text}`);
  return templateAnswer.parse(JSON.parse(text)).template.hash_id;
}

const apiWrites = (requests: { method: string; path: string }[]) =>
  requests
    .filter(
      (r) => r.method !== "GET" && r.path.startsWith("/api/") && r.path !== "/api/v0/bundles/",
    )
    .map((r) => `${r.method} ${r.path.split("?")[0] ?? ""}`);

describe("Instance bids and templates under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 2 });

  const instanceIds = async () => (await emulator.state()).instances.map((i) => i.id);
  const bidOf = async (id: number) =>
    (await emulator.state()).instances.find((i) => i.id === id)?.["bidDollarsPerHour"];

  it("raises a bid in place, shows an outbid instance after refresh, and wins it back", async () => {
    await withStack(
      { program: bidProgram(0.2), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 3 });
        const id = up.outputs["instanceId"]?.value as number;
        expect(await bidOf(id)).toBe(0.2);

        // A bid raised: in place, the same instance, one bid change and nothing else.
        await setProgram(bidProgram(0.3));
        await emulator.clearRequests();
        const raised = await stack.up({ onOutput });
        expect(raised.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(raised.outputs["instanceId"]?.value).toBe(id);
        expect(apiWrites(await emulator.requests())).toEqual([
          `PUT /api/v0/instances/bid_price/${id}/`,
        ]);
        expect(await bidOf(id)).toBe(0.3);

        // Outbid: refresh shows it (status, the service's message, the winning price).
        await outbid(emulator, id, 0.5);
        const refreshSaid: string[] = [];
        const refreshed = await stack.refresh({ onOutput: (text) => refreshSaid.push(text) });
        // Nothing for the next up to do (onOutbid wait), so no drift; refresh says why.
        expect(refreshed.summary.resourceChanges).toEqual({ same: 3 });
        expect(refreshSaid.join("")).toContain(`gpu: instance ${id} is outbid: a bid of $0.5/h`);
        // Refresh updates the resource's outputs (the stack's exports wait for the next up).
        const seen = dynamicResources(await exportState(false)).find((resource) =>
          resource.urn.endsWith("::gpu"),
        )?.outputs;
        expect(seen).toMatchObject({
          instanceId: id,
          actualStatus: "stopped",
          intendedStatus: "running",
          outbidByDollarsPerHour: 0.5,
        });
        expect(seen?.["statusMessage"]).toMatch(/outbid/i);

        // The declared bid is below the winning one (onOutbid wait, the default): up leaves it
        // paused, writes nothing, and says what holds it and what its disk bills meanwhile.
        await emulator.clearRequests();
        const said: string[] = [];
        const waited = await stack.up({ onOutput: (text) => said.push(text) });
        expect(waited.summary.resourceChanges).toEqual({ same: 3 });
        expect(said.join("")).toMatch(
          new RegExp(
            String.raw`gpu: instance ${id} is outbid: a bid of \$0\.5/h holds its machine; it ` +
              String.raw`stays paused \(onOutbid wait\), its data kept and its disk billing`,
          ),
        );
        expect(apiWrites(await emulator.requests())).toEqual([]);
        expect(await instanceIds()).toEqual([id]);

        // A bid above the winning one: up raises it and waits until the instance runs again.
        await setProgram(bidProgram(0.6));
        await emulator.clearRequests();
        const resumed = await stack.up({ onOutput });
        expect(resumed.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(resumed.outputs["instanceId"]?.value).toBe(id);
        expect(resumed.outputs["actualStatus"]?.value).toBe("running");
        expect(resumed.outputs["outbidByDollarsPerHour"]?.value).toBeUndefined();
        expect(apiWrites(await emulator.requests())).toEqual([
          `PUT /api/v0/instances/bid_price/${id}/`,
        ]);
        expect(await bidOf(id)).toBe(0.6);
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });

        await stack.destroy({ onOutput });
        expect(await instanceIds()).toEqual([]);
      },
    );
  });

  it("replaces an outbid instance with onOutbid replace at the next up --refresh, leaving nothing billing for it", async () => {
    const replaceProgram = program(`
const gpu = new gpucloud.Instance("gpu", {
  offerQuery: { gpuName: "RTX 4090" },
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  price: 0.2,
  onOutbid: "replace",
  pollIntervalSeconds: 0.05,
});
exports.instanceId = gpu.instanceId;
exports.actualStatus = gpu.actualStatus;
`);
    await withStack(
      { program: replaceProgram, config: emulatorConfig(emulator) },
      async ({ stack, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        const id = up.outputs["instanceId"]?.value as number;
        await outbid(emulator, id, 0.5);

        // The preview after a refresh names the replacement and why, and writes nothing.
        await emulator.clearRequests();
        const preview = await stack.preview({ refresh: true });
        expect(preview.changeSummary).toMatchObject({ replace: 1 });
        expect(preview.stdout).toContain(
          `gpu: instance ${id} is outbid: a bid of $0.5/h holds its machine; it is replaced ` +
            "(onOutbid replace): another instance is rented by offerQuery",
        );
        expect(apiWrites(await emulator.requests())).toEqual([]);

        const replaced = await stack.up({ refresh: true, onOutput });
        expect(replaced.summary.resourceChanges).toMatchObject({ replace: 1 });
        const newId = replaced.outputs["instanceId"]?.value as number;
        expect(newId).not.toBe(id);
        expect(replaced.outputs["actualStatus"]?.value).toBe("running");
        // The paused one is destroyed: only the replacement exists, and bills.
        expect(await instanceIds()).toEqual([newId]);
        expect(await bidOf(newId)).toBe(0.2);
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });

        await stack.destroy({ onOutput });
        expect(await instanceIds()).toEqual([]);
      },
    );
  });

  it("launches from a template, refreshes with no changes, and rebuilds it in place when the template changes", async () => {
    const template = {
      name: "vllm server",
      image: "vllm/vllm-openai",
      tag: "v0.6.0",
      env: "-e MODEL_ID=org/model-a -e MAX_TOKENS=4096",
      onstart: "vllm serve $MODEL_ID",
      runtype: "args",
      recommended_disk_space: 40,
      docker_login_repo: "",
      docker_login_user: "",
      docker_login_pass: "",
    };
    const hash = await templateCall(emulator, "POST", template);
    await withStack(
      { program: templateProgram(hash), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 3 });
        const id = up.outputs["instanceId"]?.value as number;
        const [launched] = (await emulator.state()).instances;
        expect(launched).toMatchObject({
          id,
          image: "vllm/vllm-openai:v0.6.0",
          diskGb: 40,
          onstart: "vllm serve $MODEL_ID",
          runtype: "args",
        });
        expect(launched?.["env"]).toMatchObject({ MODEL_ID: "org/model-b", MAX_TOKENS: "4096" });

        // The template's values are what runs, not drift.
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });
        expect((await stack.preview()).changeSummary).toEqual({ same: 3 });

        // An edited template has a new hash: the container is rebuilt on its machine from it,
        // the same instance, and preview says so (its local disk is lost).
        const edited = await templateCall(emulator, "PUT", {
          hash_id: hash,
          onstart: "vllm serve $MODEL_ID --max-model-len 8192",
        });
        expect(edited).not.toBe(hash);
        await setProgram(templateProgram(edited));
        const preview = await stack.preview();
        expect(preview.changeSummary).toEqual({ same: 2, update: 1 });
        expect(preview.stdout).toContain(
          `instance ${String(id)} is updated in place: the container is rebuilt on its machine`,
        );
        expect(preview.stdout).toContain("its local disk is lost");
        await emulator.clearRequests();
        const rebuilt = await stack.up({ onOutput });
        expect(rebuilt.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(rebuilt.outputs["instanceId"]?.value).toBe(id);
        expect(apiWrites(await emulator.requests())).toEqual([
          `PUT /api/v0/instances/update_template/${String(id)}/`,
        ]);
        expect(await instanceIds()).toEqual([id]);
        expect((await emulator.state()).instances[0]).toMatchObject({
          id,
          offer: launched?.["offer"],
          onstart: "vllm serve $MODEL_ID --max-model-len 8192",
        });

        // Pulumi's own replaceOnChanges relaunches on a template change, for those who want it.
        const again = await templateCall(emulator, "PUT", { hash_id: edited, tag: "v0.6.1" });
        await setProgram(templateProgram(again, true));
        const relaunched = await stack.up({ onOutput });
        expect(relaunched.summary.resourceChanges).toEqual({ same: 2, replace: 1 });
        const newId = relaunched.outputs["instanceId"]?.value as number;
        expect(newId).not.toBe(id);
        expect(await instanceIds()).toEqual([newId]);
        expect((await emulator.state()).instances[0]?.["image"]).toBe("vllm/vllm-openai:v0.6.1");

        await stack.destroy({ onOutput });
        expect(await instanceIds()).toEqual([]);
      },
    );
  });
});
