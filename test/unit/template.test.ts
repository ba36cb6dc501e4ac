import {
  compileTemplateQuery,
  envStringOf,
  parseEnvString,
  TemplateQueryError,
} from "../../provider/client/templates";
import { templateSummaryOf } from "../../provider/client/template-summaries";
import {
  instanceOfferFilters,
  instanceOfferQueryOfFilters,
} from "../../provider/client/offer-filters";
import {
  diffTemplate,
  editFields,
  templateInputsSchema,
  type TemplateInputs,
  type TemplateOutputs,
  toWire,
} from "../../provider/resources/template";
import { checkInputs, maxReasonChars, unknownValue } from "../../provider/shared/validation";

const password = "dckr_pat_S3cr3t-Value-0123456789";

function check(news: Record<string, unknown>) {
  return checkInputs(
    templateInputsSchema,
    { name: "vllm", image: "vllm/vllm-openai", ...news },
    { type: "Template" },
  );
}

/** The reasons of a check, each asserted to be one line that never shows the password. */
function reasons(news: Record<string, unknown>): string[] {
  const { failures } = check(news);
  for (const failure of failures) {
    expect(failure.property).toBe("");
    expect(failure.reason).not.toMatch(/\n/);
    expect(failure.reason.length).toBeLessThanOrEqual(maxReasonChars);
    expect(failure.reason).not.toContain(password);
  }
  return failures.map((failure) => failure.reason);
}

const base: TemplateInputs = check({}).inputs;

describe("Template inputs", () => {
  it("fills the service's defaults, so that what is recorded is what the service holds", () => {
    expect(check({}).failures).toEqual([]);
    expect(base).toEqual({
      name: "vllm",
      image: "vllm/vllm-openai",
      tag: "latest",
      env: {},
      ports: [],
      onstart: "",
      runtype: "args",
      args: "",
      diskGb: 8,
      description: "",
      readme: "",
      private: true,
      sshDirect: false,
      useSsh: false,
      jupyterDirect: false,
      jupyterDir: "",
      useJupyterLab: false,
    });
  });

  it("takes a registry with a port, and a digest, in image", () => {
    expect(check({ image: "registry.local:5000/team/vllm" }).failures).toEqual([]);
    expect(check({ image: "vllm/vllm-openai@sha256:0123abcd" }).failures).toEqual([]);
  });

  it("normalises ports to host:container[/udp]", () => {
    const { inputs, failures } = check({ ports: [8000, "8080:80", "5353/udp", "22/tcp"] });
    expect(failures).toEqual([]);
    expect(inputs.ports).toEqual(["8000:8000", "8080:80", "5353:5353/udp", "22:22"]);
  });

  it.each([
    [{ name: "" }, /^name: must not be empty/],
    [{ name: "a\nb" }, /^name: must not contain control characters/],
    [{ image: "my image" }, /^image: must be a Docker image path with no spaces/],
    [{ image: undefined }, /^image: required: the Docker image/],
    [{ image: "vllm/vllm-openai:v0.6" }, /^image: give the image's tag in tag, not in image/],
    [{ tag: "v 1" }, /^tag: is a Docker tag: letters, digits/],
    [{ runtype: "vm" }, /^runtype: must be ssh, jupyter or args/],
    [{ diskGb: 0 }, /^diskGb: must be positive \(GB\)/],
    [{ diskGb: "8" }, /^diskGb: expected a number, received a string holding a number/],
    [{ env: { "1X": "v" } }, /^env: the name "1X" is not allowed: env names hold letters/],
    [{ env: { TOKEN: "has space" } }, /^env\.TOKEN: env values must not contain spaces/],
    [{ ports: [70000] }, /^ports\.0: ports are 1-65535; got 70000$/],
    [{ ports: ["80:80/sctp"] }, /^ports\.0: a port string is "host:container" or one port/],
    [{ ports: [true] }, /^ports\.0: each port is a number 1-65535 or a string/],
    [{ ports: ["99999:1"] }, /^ports\.0: ports are 1-65535/],
    [{ private: "yes" }, /^private: expected true or false, received a string of 3 characters/],
    [
      { searchFilters: { gpuRam: 24 } },
      /^searchFilters: gpuRam: not a field of instance offer queries/,
    ],
    [
      { searchFilters: { gpuRamGb: { gte: "24" } } },
      /^searchFilters: gpuRamGb\.gte: got "24"; expected a number/,
    ],
    [
      { searchFilters: { order: [["dollarsPerHour", "asc"]] } },
      /^searchFilters: order is not a filter/,
    ],
    [{ searchFilters: 42 }, /^searchFilters: must be an offer query object/],
    [
      { dockerLogin: "user:pass" },
      /^dockerLogin: expected an object, received a string of 9 characters \(dockerLogin must be/,
    ],
    [
      { dockerLogin: { repo: "docker.io", user: "me" } },
      /^dockerLogin\.password: the registry access token or password, a non-empty string$/,
    ],
  ])("fails %j with one line naming the field and what is allowed", (news, pattern) => {
    const found = reasons(news);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(pattern);
  });

  it("never describes the registry password, whatever its type", () => {
    for (const bad of [1234567890123, true, ["x"], { p: password }, ""]) {
      const found = reasons({ dockerLogin: { repo: "docker.io", user: "me", password: bad } });
      expect(found).toEqual([
        "dockerLogin.password: the registry access token or password, a non-empty string",
      ]);
      expect(found.join()).not.toContain("1234567890123");
    }
    // A password next to a wrong repo: only the repo is named.
    expect(reasons({ dockerLogin: { repo: 5, user: "me", password } })).toEqual([
      "dockerLogin.repo: the registry, a non-empty string such as docker.io or ghcr.io",
    ]);
  });

  it("never echoes an env value (it may be a token)", () => {
    const value = "hf_TOKEN with-space";
    const found = reasons({ env: { HF_TOKEN: value } });
    expect(found.join()).not.toContain("hf_TOKEN");
    expect(found[0]).toMatch(/received a string of 19 characters/);
  });

  it("leaves a field not known yet at preview for the real run", () => {
    expect(
      check({ dockerLogin: unknownValue, searchFilters: { gpuRamGb: unknownValue } }).failures,
    ).toEqual([]);
  });

  it("reports every bad field at once", () => {
    expect(reasons({ name: "", runtype: "x", diskGb: -1 })).toHaveLength(3);
  });
});

describe("Template wire mapping", () => {
  it("sends every field: env and ports as Docker flags, filters in the API's names and units", () => {
    const inputs = check({
      env: { MODEL_ID: "meta/llama-3", MAX_TOKENS: "4096" },
      ports: [8000],
      searchFilters: { gpuRamGb: { gte: 24 }, cudaMaxGood: { gte: 12.6 }, verified: true },
      dockerLogin: { repo: "ghcr.io", user: "me", password },
      description: "d",
    }).inputs;
    expect(toWire(inputs)).toEqual({
      name: "vllm",
      image: "vllm/vllm-openai",
      tag: "latest",
      env: "-e MODEL_ID=meta/llama-3 -e MAX_TOKENS=4096 -p 8000:8000",
      onstart: "",
      runtype: "args",
      args_str: "",
      recommended_disk_space: 8,
      desc: "d",
      readme: "",
      private: true,
      ssh_direct: false,
      use_ssh: false,
      jup_direct: false,
      jupyter_dir: "",
      use_jupyter_lab: false,
      extra_filters: {
        gpu_ram: { gte: 24000 },
        cuda_max_good: { gte: 12.6 },
        verified: { eq: true },
      },
      docker_login_repo: "ghcr.io",
      docker_login_user: "me",
      docker_login_pass: password,
    });
  });

  it("sends empty registry fields and filters when none are declared", () => {
    expect(toWire(base)).toMatchObject({
      env: "",
      extra_filters: {},
      docker_login_repo: "",
      docker_login_user: "",
      docker_login_pass: "",
    });
  });

  it("parses the env string back, whatever its spacing, and ignores other flags", () => {
    expect(parseEnvString("-e A=1  -e B=x=y -p 8000 -p 53:53/udp --shm-size 1g -e")).toEqual({
      env: { A: "1", B: "x=y" },
      ports: ["8000:8000", "53:53/udp"],
    });
    expect(parseEnvString(null)).toEqual({ env: {}, ports: [] });
    const env = { A: "1", B: "two" };
    expect(parseEnvString(envStringOf(env, ["8000:8000"]))).toEqual({ env, ports: ["8000:8000"] });
  });

  it("maps stored filters back to the typed query, units and all", () => {
    const stored = instanceOfferFilters({ gpuRamGb: { gte: 24 }, gpuName: "RTX 4090" });
    expect(stored).toEqual({ gpu_ram: { gte: 24000 }, gpu_name: { eq: "RTX 4090" } });
    expect(instanceOfferQueryOfFilters({ ...stored, bogus: { eq: 1 } })).toEqual({
      query: { gpuRamGb: { gte: 24 }, gpuName: { eq: "RTX 4090" } },
      unknown: ["bogus"],
    });
    // The string form stores the same filters.
    expect(instanceOfferFilters("gpu_ram>=24 gpu_name=RTX_4090")).toEqual(stored);
  });
});

describe("Template diff and edits", () => {
  const recorded: TemplateOutputs = {
    ...check({ dockerLogin: { repo: "ghcr.io", user: "me", password } }).inputs,
    templateId: 7,
    hashId: "0123456789abcdef0123456789abcdef",
  };

  it("changes nothing when the inputs are as recorded", () => {
    const { templateId: _id, hashId: _hash, ...inputs } = recorded;
    expect(diffTemplate(recorded, inputs)).toEqual({ changes: false, replaces: [] });
  });

  it.each<[string, Partial<TemplateInputs>, Record<string, unknown>]>([
    ["name", { name: "renamed" }, { name: "renamed" }],
    ["image", { image: "other/image" }, { image: "other/image" }],
    ["tag", { tag: "v2" }, { tag: "v2" }],
    ["env", { env: { A: "1" } }, { env: "-e A=1" }],
    ["ports", { ports: ["8000:8000"] }, { env: "-p 8000:8000" }],
    ["onstart", { onstart: "echo hi" }, { onstart: "echo hi" }],
    ["runtype", { runtype: "ssh" }, { runtype: "ssh" }],
    ["diskGb", { diskGb: 50 }, { recommended_disk_space: 50 }],
    ["description", { description: "new" }, { desc: "new" }],
    ["readme", { readme: "r" }, { readme: "r" }],
    ["private", { private: false }, { private: false }],
    ["sshDirect", { sshDirect: true }, { ssh_direct: true }],
    [
      "searchFilters",
      { searchFilters: { numGpus: 2 } },
      { extra_filters: { num_gpus: { eq: 2 } } },
    ],
  ])("changes %s in place, sending only that field", (_field, change, sent) => {
    const { templateId: _id, hashId: _hash, ...inputs } = recorded;
    const news = { ...inputs, ...change };
    expect(diffTemplate(recorded, news)).toEqual({ changes: true, replaces: [] });
    expect(editFields(recorded, news)).toEqual(sent);
  });

  it("sends the whole registry login when any part of it changes, and clears it when removed", () => {
    const { templateId: _id, hashId: _hash, dockerLogin: _login, ...inputs } = recorded;
    const rotated = {
      ...inputs,
      dockerLogin: { repo: "ghcr.io", user: "me", password: "new-token" },
    };
    expect(diffTemplate(recorded, rotated).changes).toBe(true);
    expect(editFields(recorded, rotated)).toEqual({
      docker_login_repo: "ghcr.io",
      docker_login_user: "me",
      docker_login_pass: "new-token",
    });
    expect(editFields(recorded, inputs)).toEqual({
      docker_login_repo: "",
      docker_login_user: "",
      docker_login_pass: "",
    });
  });
});

describe("template queries (getTemplates)", () => {
  it("turns camelCase fields into the guide's wire fields", () => {
    expect(
      compileTemplateQuery({
        useSsh: true,
        countCreated: { gt: 100 },
        creatorId: { in: [38382, 48982] },
        templateId: 5,
        diskGb: { lte: 50 },
        jupyterDirect: { neq: false },
        orderBy: "countCreated",
      }),
    ).toEqual({
      filters: {
        use_ssh: { eq: true },
        count_created: { gt: 100 },
        creator_id: { in: [38382, 48982] },
        id: { eq: 5 },
        recommended_disk_space: { lte: 50 },
        jup_direct: { neq: false },
      },
      orderBy: "count_created",
    });
  });

  it.each<[unknown, RegExp]>([
    [{ gpuName: "x" }, /^gpuName: not a field of template queries; the fields are creatorId/],
    [{ useSsh: "yes" }, /^useSsh: expected true or false or an operator object/],
    [{ countCreated: { like: 3 } }, /^countCreated: operator "like" is not allowed/],
    [{ creatorId: { in: 3 } }, /^creatorId\.in: expected a list of numbers/],
    [{ name: ["a"] }, /^name: got a list; write \{in: \[\.\.\.\]\}/],
    [{ orderBy: "nope" }, /^orderBy: expected one of creatorId/],
    [{ tag: {} }, /^tag: an empty operator object/],
  ])("refuses %j naming the field", (query, pattern) => {
    expect(() => compileTemplateQuery(query as never)).toThrow(TemplateQueryError);
    expect(() => compileTemplateQuery(query as never)).toThrow(pattern);
  });

  it("summarises a row in camelCase, with env and ports parsed", () => {
    expect(
      templateSummaryOf({
        id: 3,
        hash_id: "h",
        name: "n",
        image: "i",
        tag: "t",
        env: "-e A=1 -p 8000:8000",
        recommended_disk_space: 16,
        docker_login_repo: "docker.io",
      }),
    ).toMatchObject({
      templateId: 3,
      hashId: "h",
      env: { A: "1" },
      ports: ["8000:8000"],
      diskGb: 16,
      dockerLoginRepo: "docker.io",
      createdAt: null,
    });
  });
});
