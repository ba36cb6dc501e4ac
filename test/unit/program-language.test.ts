import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  programSpelling,
  spelledField,
  spelledMessage,
} from "../../provider/native/program-language";
import { fieldFailure } from "../../provider/shared/validation";

describe("check failures name the field as the program's language spells it", () => {
  let root!: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "gpucloud-spelling-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    ["name: p\nruntime: python\n", "python"],
    ["name: p\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n", "python"],
    ["name: p\nruntime: go\n", "go"],
    ["name: p\nruntime: yaml\n", "schema"],
    ["name: p\nruntime: nodejs\n", "schema"],
  ])("reads the runtime of Pulumi.yaml: %j", async (project, spelling) => {
    const dir = await mkdtemp(path.join(root, "project-"));
    await writeFile(path.join(dir, "Pulumi.yaml"), project);
    expect(programSpelling(dir)).toBe(spelling);
    // A `main` folder below the project's root: the engine starts the provider there.
    await mkdir(path.join(dir, "src"));
    expect(programSpelling(path.join(dir, "src"))).toBe(spelling);
  });

  it("keeps the schema's names where no Pulumi.yaml says otherwise", () => {
    expect(programSpelling(path.parse(root).root)).toBe("schema");
  });

  it("spells fields and the names in a message as Python and Go do", () => {
    expect(spelledField("diskGb", "python")).toBe("disk_gb");
    expect(spelledField("networkVolume.mountPath", "python")).toBe("network_volume.mount_path");
    expect(spelledField("sshKeyIds.0", "go")).toBe("SshKeyIds.0");
    expect(spelledField("image", "go")).toBe("Image");
    expect(spelledField("diskGb", "schema")).toBe("diskGb");
    // The program's own keys are data: kept as written.
    expect(spelledField("env.HF_TOKEN", "python")).toBe("env.HF_TOKEN");
    expect(spelledField("env.myVar", "python")).toBe("env.myVar");
    expect(spelledField("permissions.api.instance_read", "go")).toBe(
      "Permissions.api.instance_read",
    );
    expect(spelledMessage('env name "myVar" is not a variable name', "python")).toBe(
      'env name "myVar" is not a variable name',
    );
    expect(
      spelledMessage(
        "gpuRam: not a field of instance offer queries; did you mean gpuRamGb? the fields are gpuName, numGpus",
        "python",
      ),
    ).toBe(
      "gpu_ram: not a field of instance offer queries; did you mean gpu_ram_gb? the fields are gpu_name, num_gpus",
    );
    expect(spelledMessage("(4) must be at most maxWorkers (2)", "go")).toBe(
      "(4) must be at most MaxWorkers (2)",
    );
  });

  it("name the field once, however the message starts", () => {
    expect(fieldFailure("diskGb", "diskGb must be at least 8 (GB); got -5")).toMatchObject({
      property: "",
      reason: "diskGb: must be at least 8 (GB); got -5",
      field: "diskGb",
      message: "must be at least 8 (GB); got -5",
    });
    expect(fieldFailure("networkVolume.mountPath", "mountPath must be absolute").reason).toBe(
      "networkVolume.mountPath: must be absolute",
    );
    expect(fieldFailure("image", "required: a Docker image").reason).toBe(
      "image: required: a Docker image",
    );
  });
});
