import { diffEndpoint, endpointInputsSchema } from "../../provider/resources/endpoint";
import {
  diffWorkerGroup,
  searchQueryOf,
  workerGroupInputsSchema,
  type WorkerGroupOutputs,
} from "../../provider/resources/worker-group";
import { coldWithinMax } from "../../provider/serverless/scaling";
import { checkInputs, unknownValue } from "../../provider/shared/validation";

// The endpoint's and worker group's inputs as check sees them: every failure is one line that
// names the field and what is allowed, and never repeats a string the program gave.

const reasons = (failures: { reason: string }[]) => failures.map((failure) => failure.reason);

describe("Endpoint inputs", () => {
  it("fills the service's defaults", () => {
    expect(
      checkInputs(endpointInputsSchema, { endpointName: "llm" }, { type: "Endpoint" }),
    ).toEqual({
      inputs: {
        endpointName: "llm",
        minLoad: 10,
        targetUtil: 0.9,
        coldMult: 2.5,
        coldWorkers: 5,
        maxWorkers: 20,
        deleteTimeoutSeconds: 600,
      },
      failures: [],
    });
  });

  it.each([
    [{ targetUtil: 0 }, /^targetUtil: is a fraction of capacity, more than 0 and at most 1/],
    [{ targetUtil: 1.5 }, /^targetUtil: .*at most 1 .*; got 1\.5$/],
    [{ minLoad: -1 }, /^minLoad: is a load per second: 0 or more; got -1$/],
    [{ coldMult: -0.5 }, /^coldMult: is a multiple of the active capacity target: 0 or more/],
    [{ coldWorkers: 1.5 }, /^coldWorkers: expected a whole number, received 1\.5/],
    [{ coldWorkers: -1 }, /^coldWorkers: is a number of workers \(instances\): 0 or more/],
    [{ maxWorkers: "20" }, /^maxWorkers: expected a number, received a string holding a number/],
    [{ endpointName: "" }, /^endpointName: must not be empty$/],
    [{ deleteTimeoutSeconds: 0 }, /^deleteTimeoutSeconds: must be positive/],
  ])("refuses %j with one line naming the field", (change, reason) => {
    const { failures } = checkInputs(
      endpointInputsSchema,
      { endpointName: "llm", ...change },
      { type: "Endpoint" },
    );
    expect(reasons(failures)).toEqual([expect.stringMatching(reason)]);
    expect(failures[0]?.property).toBe("");
    expect(failures[0]?.reason).not.toContain("\n");
  });

  it("never repeats the name it refuses", () => {
    const name = "tok_sk-very-private-\u0007value";
    const { failures } = checkInputs(
      endpointInputsSchema,
      { endpointName: name },
      { type: "Endpoint" },
    );
    expect(reasons(failures)).toEqual([
      `endpointName: must not contain control characters (received a string of ${name.length} characters)`,
    ]);
    expect(JSON.stringify(failures)).not.toContain("very-private");
  });

  it("requires a name", () => {
    expect(reasons(checkInputs(endpointInputsSchema, {}, { type: "Endpoint" }).failures)).toEqual([
      "endpointName: required: the endpoint's name, e.g. vllm-qwen3-8b-prod",
    ]);
  });

  it("says when the default cold workers exceed maxWorkers", () => {
    expect(coldWithinMax(5, 3, true)).toBe(
      "coldWorkers (default 5) must be at most maxWorkers (3): set coldWorkers to 3 or less",
    );
    expect(coldWithinMax(4, 3)).toMatch(/^coldWorkers \(4\) must be at most maxWorkers \(3\)/);
    expect(coldWithinMax(3, 3)).toBeUndefined();
  });

  it("changes everything in place", () => {
    const olds = {
      ...checkInputs(endpointInputsSchema, { endpointName: "llm" }, { type: "Endpoint" }).inputs,
      endpointId: 7,
      routeUrl: "https://serverless.example/route/",
    };
    for (const change of [
      { endpointName: "other" },
      { minLoad: 1 },
      { targetUtil: 0.5 },
      { coldMult: 1 },
      { coldWorkers: 0 },
      { maxWorkers: 9 },
    ]) {
      expect(diffEndpoint(olds, { ...olds, ...change })).toEqual({ changes: true, replaces: [] });
    }
    expect(diffEndpoint(olds, { ...olds })).toEqual({ changes: false, replaces: [] });
  });
});

describe("WorkerGroup inputs", () => {
  const hash = "0123456789abcdef0123456789abcdef";
  const base = { endpointId: 3, templateHashId: hash };

  it("fills the service's defaults and leaves cold and max workers to the service", () => {
    expect(checkInputs(workerGroupInputsSchema, base, { type: "WorkerGroup" })).toEqual({
      inputs: {
        ...base,
        minLoad: 1,
        targetUtil: 0.9,
        coldMult: 3,
        testWorkers: 3,
        gpuRamGb: 24,
        deleteTimeoutSeconds: 600,
      },
      failures: [],
    });
  });

  it.each([
    [{ endpointId: 0 }, /^endpointId: is positive/],
    [
      { templateHashId: "not-a-hash" },
      /^templateHashId: is a template's hash: 32 lowercase hex characters \(received a string of 10 characters\)$/,
    ],
    [{ templateId: 1.5 }, /^templateId: expected a whole number/],
    [{ gpuRamGb: 0 }, /^gpuRamGb: must be positive \(GB\)/],
    [{ testWorkers: -2 }, /^testWorkers: is a number of workers \(instances\): 0 or more/],
    [{ targetUtil: -0.1 }, /^targetUtil: /],
    [{ offerQuery: { gpuName: 4090 } }, /^offerQuery: gpuName: got 4090; expected text/],
    [{ offerQuery: "gpu_nam=RTX_4090" }, /^offerQuery: "gpu_nam=RTX_4090": unknown field gpu_nam/],
    [{ launchArgs: 42 }, /^launchArgs: expected a string, received 42/],
  ])("refuses %j with one line naming the field", (change, reason) => {
    const { failures } = checkInputs(
      workerGroupInputsSchema,
      { ...base, ...change },
      { type: "WorkerGroup" },
    );
    expect(reasons(failures)).toEqual([expect.stringMatching(reason)]);
  });

  it("sends the typed query as the service's query object: API names and units, no order", () => {
    expect(searchQueryOf({ gpuName: "RTX 4090", gpuRamGb: { gte: 24 }, numGpus: 1 })).toEqual({
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      external: { eq: false },
      gpu_name: { eq: "RTX 4090" },
      gpu_ram: { gte: 24000 },
      num_gpus: { eq: 1 },
    });
    expect(searchQueryOf("gpu_name=RTX_3090 verified=false")).toEqual({
      rentable: { eq: true },
      rented: { eq: false },
      external: { eq: false },
      gpu_name: { eq: "RTX 3090" },
      verified: { eq: false },
    });
    expect(searchQueryOf(undefined)).toEqual({
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      external: { eq: false },
    });
  });

  describe("diff", () => {
    const olds: WorkerGroupOutputs = {
      ...checkInputs(
        workerGroupInputsSchema,
        { ...base, offerQuery: { gpuName: "RTX 4090" } },
        { type: "WorkerGroup" },
      ).inputs,
      coldWorkers: 2,
      maxWorkers: 4,
      workerGroupId: 11,
      searchQuery: searchQueryOf({ gpuName: "RTX 4090" }),
    };
    const inputs = (outs: WorkerGroupOutputs) => {
      const { workerGroupId: _id, searchQuery: _query, ...rest } = outs;
      return rest;
    };

    it("replaces on coldWorkers and maxWorkers, which the service's update does not take", () => {
      expect(diffWorkerGroup(olds, { ...inputs(olds), coldWorkers: 3 })).toEqual({
        changes: true,
        replaces: ["coldWorkers"],
      });
      expect(diffWorkerGroup(olds, { ...inputs(olds), maxWorkers: undefined })).toEqual({
        changes: true,
        replaces: ["maxWorkers"],
      });
    });

    it("changes everything else in place", () => {
      for (const change of [
        { endpointId: 4 },
        { templateHashId: "f".repeat(32) },
        { templateHashId: undefined, templateId: 9 },
        { offerQuery: { gpuName: "RTX 3090" } },
        { launchArgs: "--env A=1" },
        { minLoad: 2 },
        { targetUtil: 0.5 },
        { coldMult: 1 },
        { testWorkers: 0 },
        { gpuRamGb: 48 },
      ]) {
        expect(diffWorkerGroup(olds, { ...inputs(olds), ...change })).toEqual({
          changes: true,
          replaces: [],
        });
      }
      expect(diffWorkerGroup(olds, inputs(olds))).toEqual({ changes: false, replaces: [] });
    });

    it("sees a query the service holds differently (refreshed drift) as a change", () => {
      const drifted = { ...olds, searchQuery: { gpu_name: { eq: "RTX 3090" } } };
      expect(diffWorkerGroup(drifted, inputs(olds))).toEqual({ changes: true, replaces: [] });
    });

    it("sees a query not known yet as a change, not a replacement", () => {
      expect(diffWorkerGroup(olds, { ...inputs(olds), offerQuery: unknownValue })).toEqual({
        changes: true,
        replaces: [],
      });
    });
  });
});
