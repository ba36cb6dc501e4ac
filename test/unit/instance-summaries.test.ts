import {
  instanceQuerySchema,
  instanceSummaryOf,
  listQueryOf,
} from "../../provider/client/instance-summaries";
import { instanceSchema } from "../../provider/client/instance-rows";
import { checkedInstanceQuery } from "../../provider/functions";

// getInstances: camelCase filters become the list's select_filters and order_by; summaries
// never carry an instance's environment, onstart script or any credential.

describe("getInstances' query and summaries", () => {
  it("turns camelCase filters into the list's columns", () => {
    const query = instanceQuerySchema.parse({
      actualStatus: "running",
      label: { in: ["a", null] },
      gpuName: { neq: "H100 SXM" },
      instanceId: { gte: 10 },
      selectFilters: { verification: { eq: "verified" } },
      orderBy: [["label", "desc"]],
    });
    expect(listQueryOf(query)).toEqual({
      selectFilters: {
        verification: { eq: "verified" },
        actual_status: { eq: "running" },
        label: { in: ["a", null] },
        gpu_name: { neq: "H100 SXM" },
        id: { gte: 10 },
      },
      orderBy: [{ col: "label", dir: "desc" }],
    });
    expect(listQueryOf(instanceQuerySchema.parse({}))).toEqual({});
  });

  it("refuses unknown fields and operators", () => {
    expect(instanceQuerySchema.safeParse({ dollarsPerHour: 1 }).success).toBe(false);
    expect(instanceQuerySchema.safeParse({ gpuName: { like: "RTX" } }).success).toBe(false);
    expect(instanceQuerySchema.safeParse({ orderBy: [["dph_total", "asc"]] }).success).toBe(false);
  });

  it("says which field of a getInstances query is wrong, sending nothing", () => {
    expect(() => checkedInstanceQuery({ gpuName: { like: "RTX" } })).toThrow(
      /^getInstances: gpuName: /,
    );
    expect(() => checkedInstanceQuery({ instanceId: "12" })).toThrow(/^getInstances: instanceId: /);
    expect(() => checkedInstanceQuery({ dollarsPerHour: 1 })).toThrow(/^getInstances: query: /);
    expect(checkedInstanceQuery({ label: "worker" })).toEqual({
      selectFilters: { label: { eq: "worker" } },
    });
  });

  it("summarises an instance without its environment or onstart", () => {
    const instance = instanceSchema.parse({
      id: 7,
      actual_status: "running",
      intended_status: "running",
      label: "worker",
      gpu_name: "RTX 4090",
      num_gpus: 1,
      gpu_ram: 24564,
      dph_total: 0.35,
      extra_env: [["HF_TOKEN", "hf_secret_value"]],
      onstart: "export TOKEN=onstart_secret_value",
      ssh_host: "ssh4.example.com",
      ssh_port: 40022,
      machine_id: 41207,
      bundle_id: 31001,
      image_uuid: "vllm/vllm-openai:v0.6.3",
      disk_space: 20,
    });
    const summary = instanceSummaryOf(instance);
    expect(summary).toMatchObject({
      instanceId: 7,
      label: "worker",
      actualStatus: "running",
      gpuName: "RTX 4090",
      numGpus: 1,
      gpuRamMb: 24564,
      dollarsPerHour: 0.35,
      askId: 31001,
      image: "vllm/vllm-openai:v0.6.3",
      diskGb: 20,
      sshHost: "ssh4.example.com",
      sshPort: 40022,
    });
    const text = JSON.stringify(summary);
    expect(text).not.toContain("hf_secret_value");
    expect(text).not.toContain("onstart_secret_value");
  });
});
