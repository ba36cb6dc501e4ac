import { z } from "zod";
import { leftOnAccount } from "../support/doc-blocks";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, expectNoLeak, outsideClient } from "../support/programs";
import { callEndpoint } from "../support/serverless-call";
import { useEmulator } from "../support/use-emulator";

// A Python program (the native plugin) exports what a client calls its serverless endpoint with;
// the test calls it as the serverless guide does: the route call to `route_url` with the
// endpoint's own key, then the request to the worker it names. The key is a secret output:
// encrypted in the state, in no output of the CLI; refresh keeps everything; destroy leaves
// nothing.

const pythonProgram = `import pulumi
import pulumi_gpucloud as gpucloud

template = gpucloud.Template(
    "worker-image",
    name="serverless-call-e2e",
    image="vllm/vllm-openai",
    tag="v0.6.3",
    disk_gb=20,
)
endpoint = gpucloud.Endpoint(
    "llm",
    endpoint_name="e2e-call",
    min_load=1,
    cold_workers=1,
    max_workers=2,
    delete_timeout_seconds=60,
)
workers = gpucloud.WorkerGroup(
    "llm-workers",
    endpoint_id=endpoint.endpoint_id,
    template_hash_id=template.hash_id,
    cold_workers=1,
    max_workers=1,
    delete_timeout_seconds=60,
)
pulumi.export("route_url", endpoint.route_url)
pulumi.export("endpoint_name", endpoint.endpoint_name)
pulumi.export("api_key", endpoint.api_key)
pulumi.export("worker_group_id", workers.worker_group_id)
`;

describe("calling a serverless endpoint from a Python program's outputs (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "test", market: { seed: 1 } });

  it("exports the route URL, the name and the key (a secret), and the call answers", async () => {
    await withStack(
      {
        language: "python",
        program: { project: "serverless-call-python", main: pythonProgram },
        config: emulatorConfig(emulator),
      },
      async ({ stack, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 4 });
        expect(up.outputs["route_url"]).toEqual({
          value: `${emulator.url}/route/`,
          secret: false,
        });
        expect(up.outputs["endpoint_name"]).toEqual({ value: "e2e-call", secret: false });
        const apiKey = up.outputs["api_key"];
        expect(apiKey?.secret).toBe(true);
        const key = z.string().parse(apiKey?.value);

        const payload = { inputs: "What is the answer?", parameters: { max_new_tokens: 8 } };
        const { route, served } = await callEndpoint(
          { routeUrl: `${emulator.url}/route/`, endpointName: "e2e-call", apiKey: key },
          payload,
        );
        const [worker] = await outsideClient(emulator).instances.list();
        expect(route.url).toBe(`${emulator.url}/serverless-workers/${String(worker?.id)}`);
        expect(served).toEqual({
          worker: worker?.id,
          route: "/generate",
          reqnum: route.reqnum,
          payload,
        });

        // Refresh reads the same outputs back: nothing changes.
        const refresh = await stack.refresh({ onOutput });
        expect(refresh.summary.resourceChanges).toEqual({ same: 4 });
        expect((await stack.outputs())["api_key"]?.secret).toBe(true);

        // The key is decrypted only on request: not in the state as stored, nor in any output.
        expect((await exportState(true)).includes(key)).toBe(true);
        expectNoLeak([await exportState(false), ...output], [key]);

        await stack.destroy({ onOutput });
        expect(await leftOnAccount(emulator)).toEqual({});
      },
    );
  });
});
