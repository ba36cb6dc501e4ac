import { isDeepStrictEqual } from "node:util";
import type { Template as TemplateWire, TemplateFields } from "../../client";
import { instanceOfferFilters, instanceOfferQueryOfFilters } from "../../client/offer-filters";
import { envStringOf, parseEnvString } from "../../client/templates";
import type { TemplateInputs, TemplateOutputs } from "./inputs";

// The mapping between the template's inputs and the service's fields.

export function toWire(inputs: TemplateInputs): TemplateFields {
  return {
    name: inputs.name,
    image: inputs.image,
    tag: inputs.tag,
    env: envStringOf(inputs.env, inputs.ports),
    onstart: inputs.onstart,
    runtype: inputs.runtype,
    args_str: inputs.args,
    recommended_disk_space: inputs.diskGb,
    desc: inputs.description,
    readme: inputs.readme,
    private: inputs.private,
    ssh_direct: inputs.sshDirect,
    use_ssh: inputs.useSsh,
    jup_direct: inputs.jupyterDirect,
    jupyter_dir: inputs.jupyterDir,
    use_jupyter_lab: inputs.useJupyterLab,
    extra_filters:
      inputs.searchFilters === undefined ? {} : instanceOfferFilters(inputs.searchFilters),
    // The guide has all three sent, empty when the image is public.
    docker_login_repo: inputs.dockerLogin?.repo ?? "",
    docker_login_user: inputs.dockerLogin?.user ?? "",
    docker_login_pass: inputs.dockerLogin?.password ?? "",
  };
}

const loginKeys = ["docker_login_repo", "docker_login_user", "docker_login_pass"] as const;

/** The fields an edit sends: those that differ; the registry login as a whole. */
export function editFields(olds: TemplateInputs, news: TemplateInputs): Partial<TemplateFields> {
  const before = toWire(olds);
  const after = toWire(news);
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (!isDeepStrictEqual(value, before[key as keyof TemplateFields])) changed[key] = value;
  }
  if (loginKeys.some((key) => key in changed)) {
    for (const key of loginKeys) changed[key] = after[key];
  }
  return changed;
}

/**
 * The inputs a template found on the service stands for. A field the answer does not carry keeps
 * its recorded value; a null one is the service's default. The password is never answered: it
 * is kept from the recorded outputs.
 */
export function fromWire(row: TemplateWire, recorded: TemplateOutputs): TemplateInputs {
  const pick = <T>(wire: T | null | undefined, kept: T, fallback: T): T =>
    wire === undefined ? kept : wire === null ? fallback : wire;
  const parsed = row.env === undefined ? undefined : parseEnvString(row.env);
  const inputs: TemplateInputs = {
    name: pick(row.name, recorded.name, ""),
    image: pick(row.image, recorded.image, ""),
    tag: pick(row.tag, recorded.tag, "latest"),
    env: parsed?.env ?? recorded.env,
    ports: parsed?.ports ?? recorded.ports,
    onstart: pick(row.onstart, recorded.onstart, ""),
    runtype: pick(row.runtype, recorded.runtype, "args") as TemplateInputs["runtype"],
    args: pick(row.args_str, recorded.args, ""),
    diskGb: pick(row.recommended_disk_space, recorded.diskGb, 8),
    description: pick(row.desc, recorded.description, ""),
    readme: pick(row.readme, recorded.readme, ""),
    private: pick(row.private, recorded.private, true),
    sshDirect: pick(row.ssh_direct, recorded.sshDirect, false),
    useSsh: pick(row.use_ssh, recorded.useSsh, false),
    jupyterDirect: pick(row.jup_direct, recorded.jupyterDirect, false),
    jupyterDir: pick(row.jupyter_dir, recorded.jupyterDir, ""),
    useJupyterLab: pick(row.use_jupyter_lab, recorded.useJupyterLab, false),
  };
  const searchFilters = searchFiltersFromWire(row.extra_filters, recorded.searchFilters);
  if (searchFilters !== undefined) inputs.searchFilters = searchFilters;
  const dockerLogin = dockerLoginFromWire(row, recorded.dockerLogin);
  if (dockerLogin !== undefined) inputs.dockerLogin = dockerLogin;
  return inputs;
}

function searchFiltersFromWire(
  stored: Record<string, unknown> | null | undefined,
  recorded: TemplateInputs["searchFilters"],
): TemplateInputs["searchFilters"] {
  if (stored === undefined) return recorded;
  const declared = recorded === undefined ? {} : instanceOfferFilters(recorded);
  // The same filters (in the API's names and units) as recorded: the recorded form stands.
  if (isDeepStrictEqual(stored ?? {}, declared)) return recorded;
  if (stored === null || Object.keys(stored).length === 0) return undefined;
  return instanceOfferQueryOfFilters(stored).query;
}

function dockerLoginFromWire(
  row: TemplateWire,
  recorded: TemplateInputs["dockerLogin"],
): TemplateInputs["dockerLogin"] {
  if (row.docker_login_repo === undefined && row.docker_login_user === undefined) return recorded;
  const repo = row.docker_login_repo ?? "";
  const user = row.docker_login_user ?? recorded?.user ?? "";
  if (repo === "" && (row.docker_login_user ?? "") === "") return undefined;
  return { repo, user, password: recorded?.password ?? "" };
}
