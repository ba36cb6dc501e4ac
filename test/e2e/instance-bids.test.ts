import { request } from "undici";
import { z } from "zod";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { dynamicResources, emulatorConfig, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Under the real Pulumi CLI, what the engine adds to bids and templates: refresh printing why an
// instance is outbid and recording it, an up that leaves it paused saying why, a preview and an
// up --refresh replacing one (onOutbid replace), a raised bid winning one back in place, and
// an instance launched from a template rebuilt in place (preview saying so) or relaunched with
// Pulumi's replaceOnChanges. One stack holds the three instances: each step acts on each. What
// each method does on its own is test/contract/bids.test.ts and instance-templates.test.ts (a
// raise of a running bid, no drift at refresh, the template's values at launch, the rebuild's
// one write).

const waiting = (price: number) => `
const gpu = new gpucloud.Instance("gpu", {
  askId: 31001,
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  price: ${price},
  pollIntervalSeconds: 0.05,
});
exports.instanceId = gpu.instanceId;
exports.actualStatus = gpu.actualStatus;
exports.outbidByDollarsPerHour = gpu.outbidByDollarsPerHour;
`;

const replaced = `
const spare = new gpucloud.Instance("spare", {
  offerQuery: { gpuName: "RTX 4090" },
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  price: 0.2,
  onOutbid: "replace",
  pollIntervalSeconds: 0.05,
});
exports.spareId = spare.instanceId;
exports.spareStatus = spare.actualStatus;
`;

const served = (hashId: string, replaceOnChanges = false) => `
const served = new gpucloud.Instance("served", {
  askId: 31001,
  templateHashId: ${JSON.stringify(hashId)},
  env: { MODEL_ID: "org/model-b" },
  pollIntervalSeconds: 0.05,
}${replaceOnChanges ? `, { replaceOnChanges: ["templateHashId"] }` : ""});
exports.servedId = served.instanceId;
`;

const threeInstances = (price: number, hashId: string, replaceOnChanges = false) =>
  program(waiting(price) + replaced + served(hashId, replaceOnChanges));

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
  const sorted = (values: string[]) => [...values].sort();

  it("an outbid instance: refresh shows it, up leaves it paused, onOutbid replace replaces one at preview and up --refresh, a raised bid wins one back in place; a template's instance is rebuilt in place, or relaunched with replaceOnChanges", async () => {
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
      { program: threeInstances(0.2, hash), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        // The stack, the instance sweeper and the three instances.
        expect(up.summary.resourceChanges).toEqual({ create: 5 });
        const id = up.outputs["instanceId"]?.value as number;
        const spareId = up.outputs["spareId"]?.value as number;
        const servedId = up.outputs["servedId"]?.value as number;
        expect(await bidOf(id)).toBe(0.2);
        const launched = (await emulator.state()).instances.find((i) => i.id === servedId);
        expect(launched).toMatchObject({
          image: "vllm/vllm-openai:v0.6.0",
          diskGb: 40,
          onstart: "vllm serve $MODEL_ID",
          runtype: "args",
        });
        expect(launched?.["env"]).toMatchObject({ MODEL_ID: "org/model-b", MAX_TOKENS: "4096" });

        // Outbid: refresh shows it (status, the service's message, the winning price).
        await outbid(emulator, id, 0.5);
        await outbid(emulator, spareId, 0.5);
        const refreshSaid: string[] = [];
        const refreshed = await stack.refresh({ onOutput: (text) => refreshSaid.push(text) });
        // gpu is no drift (onOutbid wait: nothing for the next up to do), nor is the template's
        // instance (the template's values are what runs); the spare (onOutbid replace) is
        // recorded changed, for the next up to replace. Refresh says why.
        expect(refreshed.summary.resourceChanges).toEqual({ same: 4, update: 1 });
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

        // An edited template has a new hash: the preview after a refresh says the container is
        // rebuilt on its machine (its local disk lost), names the outbid one's replacement and
        // why, and writes nothing.
        const edited = await templateCall(emulator, "PUT", {
          hash_id: hash,
          onstart: "vllm serve $MODEL_ID --max-model-len 8192",
        });
        expect(edited).not.toBe(hash);
        await setProgram(threeInstances(0.2, edited));
        await emulator.clearRequests();
        const preview = await stack.preview({ refresh: true });
        expect(preview.changeSummary).toEqual({ same: 3, update: 1, replace: 1 });
        expect(preview.stdout).toContain(
          `spare: instance ${spareId} is outbid: a bid of $0.5/h holds its machine; it is ` +
            "replaced (onOutbid replace): another instance is rented by offerQuery",
        );
        expect(preview.stdout).toContain(
          `instance ${String(servedId)} is updated in place: the container is rebuilt on its machine`,
        );
        expect(preview.stdout).toContain("its local disk is lost");
        expect(apiWrites(await emulator.requests())).toEqual([]);

        // up --refresh: the declared bid is below the winning one (onOutbid wait, the
        // default): it leaves gpu paused, writes nothing for it, and says what holds it and
        // what its disk bills meanwhile. The spare is replaced, the paused one destroyed: only
        // the replacement bills. The template's instance is rebuilt: the same instance.
        await emulator.clearRequests();
        const said: string[] = [];
        const next = await stack.up({ refresh: true, onOutput: (text) => said.push(text) });
        expect(next.summary.resourceChanges).toEqual({ same: 3, update: 1, replace: 1 });
        expect(said.join("")).toMatch(
          new RegExp(
            String.raw`gpu: instance ${id} is outbid: a bid of \$0\.5/h holds its machine; it ` +
              String.raw`stays paused \(onOutbid wait\), its data kept and its disk billing`,
          ),
        );
        const newSpare = next.outputs["spareId"]?.value as number;
        expect(newSpare).not.toBe(spareId);
        expect(next.outputs["spareStatus"]?.value).toBe("running");
        expect(next.outputs["servedId"]?.value).toBe(servedId);
        // The replacement's rent (its create, then its label handed over), the paused one's
        // destroy and the rebuild: nothing for gpu.
        expect(sorted(apiWrites(await emulator.requests()))).toEqual(
          sorted([
            "PUT /api/v0/asks/31001/",
            `PUT /api/v0/instances/${newSpare}/`,
            `DELETE /api/v0/instances/${spareId}/`,
            `PUT /api/v0/instances/update_template/${String(servedId)}/`,
          ]),
        );
        expect(sorted((await instanceIds()).map(String))).toEqual(
          sorted([id, servedId, newSpare].map(String)),
        );
        expect(await bidOf(newSpare)).toBe(0.2);
        expect((await emulator.state()).instances.find((i) => i.id === servedId)).toMatchObject({
          offer: launched?.["offer"],
          onstart: "vllm serve $MODEL_ID --max-model-len 8192",
        });

        // A bid above the winning one: up raises it in place and waits until the instance runs
        // again. Pulumi's own replaceOnChanges relaunches on a template change, for those who
        // want it.
        const again = await templateCall(emulator, "PUT", { hash_id: edited, tag: "v0.6.1" });
        await setProgram(threeInstances(0.6, again, true));
        await emulator.clearRequests();
        const resumed = await stack.up({ onOutput });
        expect(resumed.summary.resourceChanges).toEqual({ same: 3, update: 1, replace: 1 });
        expect(resumed.outputs["instanceId"]?.value).toBe(id);
        expect(resumed.outputs["actualStatus"]?.value).toBe("running");
        expect(resumed.outputs["outbidByDollarsPerHour"]?.value).toBeUndefined();
        const relaunched = resumed.outputs["servedId"]?.value as number;
        expect(relaunched).not.toBe(servedId);
        // One bid change for gpu and nothing else of it; served's relaunch (its rent, its label
        // handed over, the old one's destroy).
        expect(sorted(apiWrites(await emulator.requests()))).toEqual(
          sorted([
            `PUT /api/v0/instances/bid_price/${id}/`,
            "PUT /api/v0/asks/31001/",
            `PUT /api/v0/instances/${relaunched}/`,
            `DELETE /api/v0/instances/${servedId}/`,
          ]),
        );
        expect(await bidOf(id)).toBe(0.6);
        expect(sorted((await instanceIds()).map(String))).toEqual(
          sorted([id, newSpare, relaunched].map(String)),
        );
        expect((await emulator.state()).instances.find((i) => i.id === relaunched)?.["image"]).toBe(
          "vllm/vllm-openai:v0.6.1",
        );

        await stack.destroy({ onOutput });
        expect(await instanceIds()).toEqual([]);
      },
    );
  });
});
